// The build record through build-push's step: in process (the source, not the bundle), against the emulator
// (builders over loopback HTTP and mutual TLS, GitHub's artifact service) with the recording fake docker playing
// buildx 0.29.1 (its build history: fake-docker/build-history.mjs). The record is exported while the builder
// exists, the builder torn down, then the record uploaded as one non-zipped artifact with the real client.
// A failed build's record takes the same path: core's provisioning/build-step-record.test.ts.
import {afterAll, afterEach, beforeAll, beforeEach, expect, test} from '@jest/globals';
import {mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {dirname, join, resolve} from 'node:path';
import {fileURLToPath} from 'node:url';
import {Emulator} from '@remote-builder-actions/emulator';
import {RUNNER_DEFAULTS} from '../../emulator/src/harness/runner-env.js';
import {readDockerbuild} from '../../emulator/src/testing/dockerbuild-file.js';
import {runStepInProcess, setProcessEnv} from '../../emulator/src/testing/in-process-step.js';
import {buildPush} from '../src/build-push.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const FAKE_DOCKER = join(root, 'packages/emulator/fake-docker/docker');
const API_KEY = 'rb_test_key_5b8e2d7a4c';

let emu: Emulator;
let work: string;
let ws: string;
let restoreEnv: () => void;
let env: Record<string, string>;

beforeAll(async () => {
  emu = await Emulator.start({
    profiles: [{name: 'single', architectures: ['amd64']}],
    apiKeys: [{key: API_KEY, scopes: ['builders']}]
  });
});
afterAll(async () => {
  await emu?.close();
});
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'build-push-record-'));
  ws = join(work, 'workspace');
  mkdirSync(ws, {recursive: true});
  writeFileSync(join(ws, 'Dockerfile'), 'FROM scratch\n');
  // @actions/artifact reads the runner's variables from the process: the step's env and the process agree.
  env = {...emu.artifacts.runnerEnv(), GITHUB_SERVER_URL: RUNNER_DEFAULTS['GITHUB_SERVER_URL'] as string};
  restoreEnv = setProcessEnv({
    ...env,
    BUILDX_CONFIG: join(work, 'buildx'),
    FAKE_DOCKER_DIR: join(work, 'docker'),
    FAKE_DOCKER_BUILDX_VERSION: '0.29.1'
  });
});
afterEach(() => {
  restoreEnv();
  rmSync(work, {recursive: true, force: true});
});

function runStep(inputs: Record<string, string> = {}) {
  return runStepInProcess(io => buildPush({io, docker: FAKE_DOCKER}), {
    workspace: ws,
    runnerTemp: join(work, 'runner-temp'),
    inputs: {'api-url': emu.url, 'api-key': API_KEY, 'profile-name': 'single', context: ws, ...inputs},
    env
  });
}

/** When the fake docker ran `buildx history export`, and the ref it exported. */
function exportCall(): {at: number; argv: string[]} {
  const calls = readFileSync(join(work, 'docker', 'calls.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map(l => JSON.parse(l) as {at: number; argv: string[]});
  const found = calls.filter(c => c.argv[1] === 'history' && c.argv[2] === 'export');
  expect(found).toHaveLength(1);
  return found[0] as {at: number; argv: string[]};
}

/** The one artifact uploaded for `ref`: its record file written out, read back. */
function uploadedRecord(ref: string) {
  const name = `octo-org~octo-repo~${ref.slice(0, 6).toUpperCase()}.dockerbuild`;
  const artifacts = emu.artifacts.artifacts().filter(a => a.finalized && a.name === name);
  expect(artifacts).toHaveLength(1);
  const a = artifacts[0] as (typeof artifacts)[number];
  const file = join(work, 'uploaded.dockerbuild');
  writeFileSync(file, a.bytes as Buffer);
  return {artifact: a, record: readDockerbuild(file)};
}

test('a successful build: exported with --finalize before the teardown, uploaded after it as docker names it', async () => {
  const before = emu.ledger().length;
  await runStep();
  const call = exportCall();
  expect(call.argv).toContain('--finalize');
  const ref = call.argv.at(-1) as string;
  const builder = emu.ledger().slice(before)[0];
  expect(builder?.terminatedAt).toBeDefined();
  expect(call.at).toBeLessThanOrEqual(builder?.terminatedAt as number);
  const {artifact, record} = uploadedRecord(ref);
  expect(artifact.createdAt).toBeGreaterThanOrEqual(builder?.terminatedAt as number);
  expect(record.records.map(r => r['Ref'])).toEqual([ref]);
});
