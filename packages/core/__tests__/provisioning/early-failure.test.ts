import {describe, expect, test} from '@jest/globals';
import {InputError} from '../../src/errors.js';
import {CancelledError} from '../../src/lifecycle/cancelled-error.js';
import {earlyPhase, readStepInputs, recordEarlyFailure} from '../../src/provisioning/early-failure.js';
import {EarlyPhase} from '../../src/report/run-record.js';
import {loadRun} from '../../src/report/run-recorder.js';
import {State} from '../../src/state.js';
import {FakeActionIO} from '../fakes/fake-action-io.js';

const SECRET_INPUTS = ['api-key', 'github-token'];

describe('a failure before anything is assigned is recorded for post', () => {
  test('a bad input: a run with no builder, its phase and the error, the API key scrubbed', () => {
    const io = new FakeActionIO({'api-key': 'rb_live_key_1234'}, {});
    const read = (): never => {
      throw new InputError('timeout', 'must be a number of minutes, not "rb_live_key_1234"');
    };
    expect(() => readStepInputs(io, {action: 'build-push', secretInputs: SECRET_INPUTS}, read)).toThrow(InputError);
    const run = loadRun(io.state);
    expect(run).toMatchObject({
      action: 'build-push',
      outcome: 'failure',
      phase: 'inputs',
      builders: [],
      attempts: [],
      summary: true
    });
    expect(run?.errorTail?.join('\n')).toContain('must be a number of minutes, not "***"');
    expect(JSON.stringify(run)).not.toContain('rb_live_key_1234');
  });

  test('an early phase that fails records its phase; a cancellation is recorded as cancelled', async () => {
    const io = new FakeActionIO({}, {});
    await expect(
      earlyPhase(io, {action: 'bake', phase: EarlyPhase.LocalChecks, secretInputs: SECRET_INPUTS}, async () => {
        throw new Error('docker buildx is not installed');
      })
    ).rejects.toThrow('docker buildx is not installed');
    expect(loadRun(io.state)).toMatchObject({outcome: 'failure', phase: 'local checks'});

    const cancelled = new FakeActionIO({}, {});
    recordEarlyFailure(cancelled, {
      action: 'bake',
      phase: EarlyPhase.BuildxInstall,
      error: new CancelledError('Cancelled by SIGTERM'),
      secretInputs: SECRET_INPUTS
    });
    expect(loadRun(cancelled.state)).toMatchObject({outcome: 'cancelled', phase: 'buildx install'});
  });

  test('an early phase that succeeds records nothing', async () => {
    const io = new FakeActionIO({}, {});
    const value = await earlyPhase(io, {action: 'bake', phase: EarlyPhase.LocalChecks, secretInputs: []}, () => 7);
    expect(value).toBe(7);
    expect(loadRun(io.state)).toBeUndefined();
  });

  test('DOCKER_BUILD_SUMMARY=false is kept (post then writes none); a run already recorded is left as it is', () => {
    const off = new FakeActionIO({}, {DOCKER_BUILD_SUMMARY: 'false'});
    recordEarlyFailure(off, {action: 'configure', phase: EarlyPhase.Inputs, error: new Error('x'), secretInputs: []});
    expect(loadRun(off.state)?.summary).toBe(false);

    const io = new FakeActionIO({}, {});
    io.state.save(State.Run, JSON.stringify({action: 'bake', outcome: 'success', builders: [], attempts: []}));
    recordEarlyFailure(io, {action: 'bake', phase: EarlyPhase.LocalChecks, error: new Error('x'), secretInputs: []});
    expect(loadRun(io.state)?.outcome).toBe('success');
  });
});
