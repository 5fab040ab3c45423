// The build record through bake's step: in process (the source, not the bundle), against the emulator (builders
// over loopback HTTP and mutual TLS, GitHub's artifact service) with the recording fake docker playing buildx
// 0.29.1. One record file holds every target's build: exported before the teardown, uploaded after it.
import {afterAll, afterEach, beforeAll, beforeEach, expect, test} from '@jest/globals';
import {mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {dirname, join, resolve} from 'node:path';
import {fileURLToPath} from 'node:url';
import {Emulator} from '@remote-builder-actions/emulator';
import {RUNNER_DEFAULTS} from '../../emulator/src/harness/runner-env.js';
import {readDockerbuild} from '../../emulator/src/testing/dockerbuild-file.js';
import {runStepInProcess, setProcessEnv} from '../../emulator/src/testing/in-process-step.js';
import {bake} from '../src/bake.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const FAKE_DOCKER = join(root, 'packages/emulator/fake-docker/docker');
const API_KEY = 'rb_test_key_5b8e2d7a4c';
const BAKE_FILE = `target "app" {
  dockerfile = "Dockerfile"
}
target "db" {
  dockerfile = "Dockerfile"
}
group "default" {
  targets = ["app", "db"]
}
`;

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
  work = mkdtempSync(join(tmpdir(), 'bake-record-'));
  ws = join(work, 'workspace');
  mkdirSync(ws, {recursive: true});
  writeFileSync(join(ws, 'Dockerfile'), 'FROM scratch\n');
  writeFileSync(join(ws, 'docker-bake.hcl'), BAKE_FILE);
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

test("every target's record in one file: exported before the teardown, uploaded after it, named +1", async () => {
  const before = emu.ledger().length;
  await runStepInProcess(io => bake({io, docker: FAKE_DOCKER}), {
    workspace: ws,
    runnerTemp: join(work, 'runner-temp'),
    inputs: {
      'api-url': emu.url,
      'api-key': API_KEY,
      'profile-name': 'single',
      source: ws,
      files: join(ws, 'docker-bake.hcl')
    },
    env
  });
  const calls = readFileSync(join(work, 'docker', 'calls.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map(l => JSON.parse(l) as {at: number; argv: string[]});
  const exports = calls.filter(c => c.argv[1] === 'history' && c.argv[2] === 'export');
  expect(exports).toHaveLength(1);
  const refs = (exports[0]?.argv ?? []).slice(-2);
  expect(refs).toHaveLength(2);
  const builder = emu.ledger().slice(before)[0];
  expect(exports[0]?.at).toBeLessThanOrEqual(builder?.terminatedAt as number);

  const name = `octo-org~octo-repo~${(refs[0] as string).slice(0, 6).toUpperCase()}+1.dockerbuild`;
  const artifact = emu.artifacts.artifacts().find(a => a.finalized && a.name === name);
  expect(artifact?.createdAt).toBeGreaterThanOrEqual(builder?.terminatedAt as number);
  const file = join(work, 'uploaded.dockerbuild');
  writeFileSync(file, artifact?.bytes as Buffer);
  const record = readDockerbuild(file);
  expect(record.records.map(r => r['Ref']).sort()).toEqual([...refs].sort());
  expect(record.records.map(r => (r['FrontendAttrs'] as {target: string}).target).sort()).toEqual(['app', 'db']);
});
