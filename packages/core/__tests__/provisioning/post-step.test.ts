import {afterEach, beforeEach, describe, expect, test} from '@jest/globals';
import {existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {Buildx} from '../../src/buildx/buildx.js';
import {runPostStep} from '../../src/provisioning/post-step.js';
import {loadBuilderState, saveBuilderState} from '../../src/state.js';
import {FakeActionIO} from '../fakes/fake-action-io.js';
import {FakeBuilderApi} from '../fakes/fake-builder-api.js';
import {FakeExec} from '../fakes/fake-exec.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'post-step-test-'));
});
afterEach(() => {
  rmSync(dir, {recursive: true, force: true});
});

function harness(inputs: Record<string, string>) {
  const io = new FakeActionIO(inputs, {RUNNER_TEMP: dir});
  const api = new FakeBuilderApi();
  const made: string[] = [];
  const deps = {
    io,
    buildx: new Buildx({exec: new FakeExec(), logger: io.logger}),
    makeApi: (apiUrl: string, token: string) => {
      made.push(`${apiUrl} ${token}`);
      return Object.assign(api, {close: () => undefined});
    }
  };
  return {io, api, made, deps};
}

describe('runPostStep: the one post step of every action', () => {
  test('nothing assigned (configure names only the key input): nothing to clean up, no client made', async () => {
    const h = harness({'api-key': 'k'});
    const res = await runPostStep(h.deps, {apiKeyInput: 'api-key'});
    expect(res.hadState).toBe(false);
    expect(h.made).toEqual([]);
    expect(h.io.logger.messages('info')).toContain('Nothing to clean up: main assigned no builder.');
  });

  test('a build step: removes the private folder main left, then tears down what main did not', async () => {
    const h = harness({'api-key': 'k', 'api-url': 'https://api.example.com'});
    const tmp = join(dir, 'build-push-x');
    mkdirSync(tmp);
    writeFileSync(join(tmp, 'secret'), 's');
    h.io.state.save('tmpDir', tmp);
    saveBuilderState(h.io.state, {
      v: 1,
      builderName: 'remote-builder-0a1b2c3d',
      builderIds: ['b1'],
      tornDownIds: [],
      certDir: '',
      apiUrl: 'https://api.example.com',
      buildxCreated: false
    });
    const res = await runPostStep(h.deps, {apiKeyInput: 'api-key', builderInput: 'builder', tmpDirState: 'tmpDir'});
    expect(existsSync(tmp)).toBe(false);
    expect(h.io.logger.messages('info')).toContain(`Removed ${tmp}`);
    expect(h.made).toEqual(['https://api.example.com k']);
    expect(h.api.teardownCalls.map(c => c.id)).toEqual(['b1']);
    expect(res.maybeBilled).toEqual([]);
    expect(loadBuilderState(h.io.state)).toMatchObject({tornDownIds: ['b1']});
  });

  test('the builder input: says the step did not create that builder', async () => {
    const h = harness({builder: 'mine'});
    await runPostStep(h.deps, {apiKeyInput: 'api-key', builderInput: 'builder', tmpDirState: 'tmpDir'});
    expect(h.io.logger.messages('info')).toContain(
      'The build ran on builder "mine" (builder input), which this step did not create: nothing to tear down.'
    );
  });
});
