// What post accepts from state: each planted value is refused with its warning, and nothing is done with it.
import {afterEach, beforeEach, describe, expect, test} from '@jest/globals';
import {existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {FALLBACK_BUILDER_STATE} from '../../src/lifecycle/local-fallback.js';
import {PostStateGuard} from '../../src/provisioning/post-state-guard.js';
import {runPostStep} from '../../src/provisioning/post-step.js';
import {BuildxInstallState} from '../../src/provisioning/step-buildx.js';
import {saveBuilderState, type BuilderState} from '../../src/state.js';
import {FakeActionIO} from '../fakes/fake-action-io.js';
import {FakeBuilderApi} from '../fakes/fake-builder-api.js';
import {FakeExec} from '../fakes/fake-exec.js';
import {RecordingLogger} from '../fakes/recording-logger.js';

const API = 'https://api.example.com';
const OURS = 'remote-builder-0a1b2c3d';

describe('PostStateGuard', () => {
  const guard = (logger = new RecordingLogger()) => new PostStateGuard({logger, apiUrl: API, tempDir: '/runner/_temp'});

  // prettier-ignore
  test.each([
    ['/runner/_temp/build-push-Ab12', '/runner/_temp/build-push-Ab12'],
    ['/runner/_temp/a/../remote-builder-x', '/runner/_temp/remote-builder-x'],
    ['', ''],
    ['/runner/_temp', undefined],
    ['/runner/_temp/../work', undefined],
    ['/runner/_temp2/x', undefined],
    ['/home/runner/work/repo', undefined],
    ['/', undefined],
    ['relative/dir', undefined]
  ])('path %j → %j', (path, accepted) => {
    const logger = new RecordingLogger();
    expect(guard(logger).path('the build folder', path)).toBe(accepted);
    expect(logger.messages('warning')).toEqual(
      accepted === undefined
        ? [`Post refuses the build folder "${path}" from the saved state: it is not inside this step's temporary folder (/runner/_temp); nothing there is removed or run. Main wrote no such value.`]
        : []
    );
  });

  // prettier-ignore
  test.each([
    [OURS, undefined, true],
    ['remote-builder-fallback-0a1b2c3d', 'remote-builder-fallback-', true],
    ['remote-builder-0A1B2C3D', undefined, false],
    ['remote-builder-0a1b2c3d9', undefined, false],
    ['my-builder', undefined, false],
    ['--help', undefined, false],
    ['remote-builder-0a1b2c3d', 'remote-builder-fallback-', false]
  ])('builder name %j (prefix %j) is ours: %s', (name, prefix, ours) => {
    const logger = new RecordingLogger();
    expect(guard(logger).builderName(name, prefix)).toBe(ours ? name : undefined);
    expect(logger.messages('warning')).toEqual(
      ours ? [] : [`Post refuses the buildx builder "${name}" from the saved state: this step makes no builder of that name; it is not removed. Main wrote no such value.`]
    );
  });

  test('the service URL must be the step own', () => {
    const logger = new RecordingLogger();
    expect(guard(logger).apiUrl(API)).toBe(API);
    expect(guard(logger).apiUrl('https://collect.example.net')).toBeUndefined();
    expect(new PostStateGuard({logger}).apiUrl(API)).toBeUndefined();
    expect(logger.messages('warning')).toEqual([
      `Post refuses the service URL "https://collect.example.net" from the saved state: it is not this step's (${API}); nothing is sent there. Tear its builders down in the web UI if they are yours. Main wrote no such value.`,
      `Post refuses the service URL "${API}" from the saved state: it is not this step's (none); nothing is sent there. Tear its builders down in the web UI if they are yours. Main wrote no such value.`
    ]);
  });
});

describe('runPostStep with planted state: nothing is done with a refused value', () => {
  let temp: string;
  let outside: string;
  beforeEach(() => {
    temp = mkdtempSync(join(tmpdir(), 'post-guard-temp-'));
    outside = mkdtempSync(join(tmpdir(), 'post-guard-outside-'));
    writeFileSync(join(outside, 'precious'), 'x');
  });
  afterEach(() => {
    rmSync(temp, {recursive: true, force: true});
    rmSync(outside, {recursive: true, force: true});
  });

  function run(state: Partial<BuilderState>, extra: Record<string, string> = {}) {
    const io = new FakeActionIO({'api-key': 'k', 'api-url': API}, {RUNNER_TEMP: temp});
    saveBuilderState(io.state, {
      v: 1,
      builderName: OURS,
      builderIds: ['b1'],
      tornDownIds: [],
      certDir: '',
      apiUrl: API,
      buildxCreated: true,
      ...state
    });
    for (const [k, v] of Object.entries(extra)) io.state.save(k, v);
    const made: string[] = [];
    const api = new FakeBuilderApi();
    const exec = new FakeExec();
    const deps = {
      io,
      exec,
      makeApi: (url: string) => {
        made.push(url);
        return Object.assign(api, {close: () => undefined});
      }
    };
    return {io, made, api, exec, done: runPostStep(deps, {apiKeyInput: 'api-key', tmpDirState: 'tmpDir'})};
  }

  test('a foreign service URL: no client is made, nothing is sent', async () => {
    const r = run({apiUrl: 'https://collect.example.net'});
    const res = await r.done;
    expect(r.made).toEqual([]);
    expect(r.api.teardownCalls).toEqual([]);
    expect(res.teardown).toEqual({tornDown: [], alreadyGone: [], failed: []});
    expect(r.io.logger.messages('warning')).toEqual([
      expect.stringMatching(/^Post refuses the service URL "https:\/\/collect\.example\.net"/)
    ]);
  });

  test('a certificate folder or build folder outside the temp folder: nothing removed', async () => {
    const r = run({certDir: outside}, {tmpDir: outside});
    await r.done;
    expect(existsSync(join(outside, 'precious'))).toBe(true);
    expect(r.io.logger.messages('warning')).toEqual([
      expect.stringMatching(/^Post refuses the build folder "/),
      expect.stringMatching(/^Post refuses the certificate folder "/)
    ]);
    // The rest, main's own values, still goes.
    expect(r.api.teardownCalls.map(c => c.id)).toEqual(['b1']);
  });

  test('a foreign DOCKER_CONFIG: buildx does not run from it, and it is not removed', async () => {
    mkdirSync(join(outside, 'cli-plugins'));
    const r = run({}, {[BuildxInstallState.DockerConfig]: outside});
    await r.done;
    expect(r.exec.calls.map(c => c.opts.env?.['DOCKER_CONFIG'])).toEqual([undefined]);
    expect(existsSync(join(outside, 'cli-plugins'))).toBe(true);
    expect(r.io.logger.messages('warning')).toEqual([
      expect.stringMatching(/^Post refuses the installed buildx \(DOCKER_CONFIG\) "/)
    ]);
  });

  test('builder names that are not ours: no buildx rm of them', async () => {
    const r = run({builderName: 'prod-builder'}, {[FALLBACK_BUILDER_STATE]: '--all-inactive'});
    await r.done;
    expect(r.exec.calls).toEqual([]);
    expect(r.io.logger.messages('warning')).toEqual([
      expect.stringMatching(/^Post refuses the buildx builder "--all-inactive"/),
      expect.stringMatching(/^Post refuses the buildx builder "prod-builder"/)
    ]);
    expect(r.api.teardownCalls.map(c => c.id)).toEqual(['b1']);
  });
});
