// The assignment against the readiness deadline, and which failures move on to the next profile. The deadline
// and the grace run on the injected clock: the slow answers here are driven with a ManualClock.
import {afterEach, beforeEach, describe, expect, test} from '@jest/globals';
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {Buildx} from '../../src/buildx/buildx.js';
import {BuilderLifecycle, type ProvisionOpts} from '../../src/lifecycle/builder-lifecycle.js';
import {BuilderFailedError, BuilderTimeoutError, waitForBuilderReady} from '../../src/lifecycle/readiness.js';
import {loadBuilderState, type BuilderState} from '../../src/state.js';
import {assigned, deferred, FakeBuilderApi, httpError, readyDetails} from '../fakes/fake-builder-api.js';
import type {Clock} from '../../src/clock.js';
import {FakeClock} from '../fakes/fake-clock.js';
import {ManualClock} from '../fakes/manual-clock.js';
import {FakeExec} from '../fakes/fake-exec.js';
import {FakeProbe} from '../fakes/fake-probe.js';
import {RecordingLogger} from '../fakes/recording-logger.js';
import {RecordingStateStore} from '../fakes/recording-state-store.js';
import {failure} from '../fakes/failure.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'assign-deadline-test-'));
});
afterEach(async () => {
  await rm(root, {recursive: true, force: true});
});

function harness(clock: Clock = new FakeClock()) {
  const api = new FakeBuilderApi();
  const store = new RecordingStateStore([]);
  const logger = new RecordingLogger();
  const lifecycle = new BuilderLifecycle({
    api,
    apiUrl: 'https://api.example.com',
    state: store,
    logger,
    clock,
    probe: new FakeProbe().probe,
    buildx: new Buildx({exec: new FakeExec(), logger}),
    certRoot: root,
    builderName: 'rb',
    schedule: {intervalMs: 10, probeIntervalMs: 10, maxBackoffMs: 40},
    inFlightGraceMs: 150,
    teardownLimits: {budgetMs: 1000, rmMs: 1000}
  });
  const provision = (o: Partial<ProvisionOpts> = {}) =>
    lifecycle.provision({profiles: ['amd'], timeoutMs: 60, setupBuildx: false, use: false, ...o});
  const state = (): BuilderState => loadBuilderState(store) as BuilderState;
  return {api, logger, provision, state};
}

describe('BuilderLifecycle: an assignment slower than the deadline', () => {
  test('answered within the grace: its builders are recorded and torn down, then a timeout naming them', async () => {
    const clock = new ManualClock();
    const h = harness(clock);
    const answer = deferred<ReturnType<typeof assigned>>();
    h.api.onAssign('amd', () => answer.promise);
    const run = failure(h.provision());
    await untilSleeping(clock);
    // The 60 ms deadline passes, then the answer comes 60 ms into the 150 ms grace.
    await clock.advance(60);
    expect(h.logger.messages('info')).toContain(
      'The assignment from profile "amd" got no answer within 60 ms; waiting up to 150 ms more for a late answer to tear it down'
    );
    await clock.advance(60);
    answer.resolve(assigned('b1'));
    const e = await run;
    expect(e).toBeInstanceOf(BuilderTimeoutError);
    expect(e.message).toBe(
      'The service did not answer the assignment from profile "amd" in time (its late answer, b1, is torn down)'
    );
    // The request itself was left to answer: it may have been processed.
    expect(h.api.assignCalls[0]?.signal?.aborted).toBe(false);
    expect(h.api.tornDown).toEqual(['b1']);
    expect(h.state()).toMatchObject({builderIds: ['b1'], tornDownIds: ['b1']});
    expect(h.logger.messages('warning')).toEqual([]);
  });

  test('no answer within the grace either: the request is abandoned, with a warning that a builder may be billed', async () => {
    const clock = new ManualClock();
    const h = harness(clock);
    h.api.onAssign('amd', () => new Promise(() => undefined));
    const run = failure(h.provision());
    await untilSleeping(clock);
    await clock.advance(60 + 149);
    expect(h.api.assignCalls[0]?.signal?.aborted).toBe(false);
    await clock.advance(1);
    const e = await run;
    expect(e).toBeInstanceOf(BuilderTimeoutError);
    expect(e.message).toBe('The service did not answer the assignment from profile "amd" in time');
    expect(h.api.assignCalls[0]?.signal?.aborted).toBe(true);
    expect(h.logger.messages('warning')).toEqual([
      'The assignment from profile "amd" did not answer within 210 ms; if the service processed it, a builder may still be billed: check the builders in the web UI'
    ]);
    expect(h.api.teardownCalls).toEqual([]);
  });

  test('an answer already there: the deadline timer neither moves a fake clock nor outlives the answer', async () => {
    const clock = new FakeClock();
    const h = harness(clock);
    h.api.onAssign('amd', assigned('b1')).onDetails('b1', readyDetails('10.0.0.1:1'));
    const res = await h.provision();
    expect(res.builderIds).toEqual(['b1']);
    expect({sleeps: clock.sleeps, now: clock.now(), timers: clock.pendingTimers}).toEqual({
      sleeps: [],
      now: 0,
      timers: 0
    });
  });

  test('a timed-out profile moves on to the next one', async () => {
    const clock = new ManualClock();
    const h = harness(clock);
    h.api
      .onAssign('amd', () => new Promise(() => undefined))
      .onAssign('arm', assigned('b2'))
      .onDetails('b2', readyDetails('10.0.0.2:1'));
    const run = h.provision({profiles: ['amd', 'arm']});
    await untilSleeping(clock);
    // The 60 ms deadline, then the 150 ms grace for a late answer.
    await clock.advance(60 + 150);
    expect((await run).builderIds).toEqual(['b2']);
  });
});

describe('BuilderLifecycle: a refused key is not retried on the next profile', () => {
  test.each([401, 403])('%i on the first profile → thrown, the second never asked', async status => {
    const h = harness();
    h.api.onAssign('amd', httpError('assign builder', status)).onAssign('arm', assigned('b2'));
    const e = await failure(h.provision({profiles: ['amd', 'arm']}));
    expect(e.message).toBe(`Failed to assign builder: HTTP ${status}`);
    expect(h.api.assignCalls.map(c => c.profile)).toEqual(['amd']);
  });
});

describe('waitForBuilderReady: "ready" without the TLS material', () => {
  test('declared broken once such answers have lasted 2 s, naming what is missing', async () => {
    const api = new FakeBuilderApi().onDetails(
      'b1',
      readyDetails('10.0.0.1:1', {status: 'ready'}, {ca: '', client_key: ''})
    );
    const clock = new FakeClock();
    const e = await failure(
      waitForBuilderReady('b1', {
        api,
        clock,
        logger: new RecordingLogger(),
        probe: new FakeProbe().probe,
        deadline: 60_000,
        schedule: {intervalMs: 100, probeIntervalMs: 50, maxBackoffMs: 400}
      })
    );
    expect(e).toBeInstanceOf(BuilderFailedError);
    expect(e.message).toBe(
      'Builder b1 reports status "ready" but its details lack ca, client_key: the service sent incomplete connection details'
    );
    // Every 100 ms from 0 to 2 s.
    expect(api.detailsCount('b1')).toBe(21);
    expect(clock.now()).toBe(2000);
  });

  test('a builder still starting is waited for as before', async () => {
    const api = new FakeBuilderApi().onDetails(
      'b1',
      ...Array(12).fill(readyDetails('10.0.0.1:1', {status: 'starting'}, {ca: ''})),
      readyDetails('10.0.0.1:1')
    );
    const ready = await waitForBuilderReady('b1', {
      api,
      clock: new FakeClock(),
      logger: new RecordingLogger(),
      probe: new FakeProbe().probe,
      deadline: 60_000,
      schedule: {intervalMs: 100, probeIntervalMs: 50, maxBackoffMs: 400}
    });
    expect(ready.detailsRequests).toBe(13);
  });
});

/** Yields (no time passes) until something sleeps on the clock: the code under test reached its timer. */
async function untilSleeping(clock: ManualClock): Promise<void> {
  for (let i = 0; clock.pending + clock.pendingTimers === 0; i++) {
    if (i > 10_000) throw new Error('nothing slept on the clock');
    await new Promise(resolve => setImmediate(resolve));
  }
}
