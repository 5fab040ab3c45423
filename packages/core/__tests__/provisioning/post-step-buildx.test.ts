// The post step with a buildx main installed (buildx-version): `buildx rm` runs through main's private
// DOCKER_CONFIG (post is another process: the folder comes from state), and the folder goes after it.
import {afterEach, beforeEach, expect, test} from '@jest/globals';
import {existsSync, mkdirSync, mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {runPostStep} from '../../src/provisioning/post-step.js';
import {BuildxInstallState} from '../../src/provisioning/step-buildx.js';
import {saveBuilderState} from '../../src/state.js';
import {FakeActionIO} from '../fakes/fake-action-io.js';
import {FakeBuilderApi} from '../fakes/fake-builder-api.js';
import {FakeExec} from '../fakes/fake-exec.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'post-step-buildx-'));
});
afterEach(() => {
  rmSync(dir, {recursive: true, force: true});
});

function harness(installed: string | undefined) {
  const io = new FakeActionIO({'api-key': 'k', 'api-url': 'https://api.example.com'}, {RUNNER_TEMP: dir});
  if (installed !== undefined) io.state.save(BuildxInstallState.DockerConfig, installed);
  saveBuilderState(io.state, {
    v: 1,
    builderName: 'remote-builder-0a1b2c3d',
    builderIds: ['b1'],
    tornDownIds: [],
    certDir: '',
    apiUrl: 'https://api.example.com',
    buildxCreated: true
  });
  // Each docker call notes whether the private folder still existed when it ran.
  const existedAtRm: boolean[] = [];
  const exec = new FakeExec(call => {
    if (installed && call.args[1] === 'rm') existedAtRm.push(existsSync(installed));
    return {};
  });
  const api = new FakeBuilderApi();
  const deps = {io, exec, makeApi: () => Object.assign(api, {close: () => undefined})};
  return {io, exec, api, deps, existedAtRm};
}

test('buildx rm runs with the installed DOCKER_CONFIG, then the folder is removed', async () => {
  const installed = join(dir, 'docker-config-buildx-x');
  mkdirSync(join(installed, 'cli-plugins'), {recursive: true});
  const h = harness(installed);
  await runPostStep(h.deps, {apiKeyInput: 'api-key'});
  const rm = h.exec.calls.filter(c => c.args[1] === 'rm');
  expect(rm.map(c => c.args)).toEqual([['buildx', 'rm', 'remote-builder-0a1b2c3d']]);
  expect(rm.map(c => c.opts.env)).toEqual([{DOCKER_CONFIG: installed}]);
  expect(h.existedAtRm).toEqual([true]);
  expect(existsSync(installed)).toBe(false);
  expect(h.api.teardownCalls.map(c => c.id)).toEqual(['b1']);
  expect(h.io.logger.messages('info')).toContain(`Removed the buildx installed for the job (${installed})`);
});

test('nothing installed, or the folder already gone: the runner buildx, nothing removed', async () => {
  for (const installed of [undefined, join(dir, 'gone')]) {
    const h = harness(installed);
    await runPostStep(h.deps, {apiKeyInput: 'api-key'});
    const rm = h.exec.calls.filter(c => c.args[1] === 'rm');
    expect(rm.map(c => c.opts.env)).toEqual([undefined]);
    expect(h.io.logger.messages('info').filter(m => /buildx installed/.test(m))).toEqual([]);
  }
});
