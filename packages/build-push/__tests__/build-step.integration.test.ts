// What build-push's step does with what a build leaves behind, from one build: in process (the source, not the
// bundle), against the emulator (builders over loopback HTTP and mutual TLS, GitHub's artifact service) with the
// recording fake docker playing buildx 0.29.1 (its build history: fake-docker/build-history.mjs) and writing
// buildx's metadata warnings and local state (FAKE_DOCKER_BUILD_WARNINGS). The step logs on @actions/core; its
// stdout is read back with the runner harness's workflow-command parser.
// - Build checks: each warning annotates its line of the Dockerfile. The other cases (the default Git context,
//   DOCKER_BUILD_CHECKS_ANNOTATIONS off) are core's docker/build-checks.test.ts, on annotateBuildChecks.
// - The build record: exported while the builder exists, the builder torn down, then the record uploaded as one
//   non-zipped artifact with the real client. A failed build's record takes the same path: core's
//   provisioning/build-step-record.test.ts.
import {afterAll, beforeAll, expect, test} from '@jest/globals';
import {mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {dirname, join, resolve} from 'node:path';
import {fileURLToPath} from 'node:url';
import {Emulator} from '@remote-builder-actions/emulator';
import {RUNNER_DEFAULTS} from '../../emulator/src/harness/runner-env.js';
import {readDockerbuild} from '../../emulator/src/testing/dockerbuild-file.js';
import {runStepInProcess, setProcessEnv, type InProcessStepResult} from '../../emulator/src/testing/in-process-step.js';
import {buildPush} from '../src/build-push.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const FAKE_DOCKER = join(root, 'packages/emulator/fake-docker/docker');
const FIXTURE = join(root, 'packages/core/__tests__/docker/fixtures/build-checks/metadata-build.json');
const API_KEY = 'rb_test_key_5b8e2d7a4c';
/** actions-toolkit's metadata-build.json: three ConsistentInstructionCasing warnings (lines 2, 3 and 6). */
const WARNINGS = (JSON.parse(readFileSync(FIXTURE, 'utf8')) as Record<string, unknown>)['buildx.build.warnings'] as {
  sourceInfo: {data: string};
}[];
const DOCKERFILE = Buffer.from(WARNINGS[0]?.sourceInfo.data ?? '', 'base64').toString('utf8');

let emu: Emulator;
let work: string;
/** The one build of this file. */
let step: InProcessStepResult;
let ledgerBefore: number;

beforeAll(async () => {
  emu = await Emulator.start({
    profiles: [{name: 'single', architectures: ['amd64']}],
    apiKeys: [{key: API_KEY, scopes: ['builders']}]
  });
  work = mkdtempSync(join(tmpdir(), 'build-push-step-'));
  const ws = join(work, 'workspace');
  mkdirSync(ws, {recursive: true});
  writeFileSync(join(ws, 'Dockerfile'), DOCKERFILE);
  writeFileSync(join(work, 'warnings.json'), JSON.stringify(WARNINGS));
  // @actions/artifact reads the runner's variables from the process: the step's env and the process agree.
  const env = {...emu.artifacts.runnerEnv(), GITHUB_SERVER_URL: RUNNER_DEFAULTS['GITHUB_SERVER_URL'] as string};
  // The fake docker and buildx's config folder (where the refs' local state goes) come from the process env.
  const restoreEnv = setProcessEnv({
    ...env,
    BUILDX_CONFIG: join(work, 'buildx'),
    FAKE_DOCKER_DIR: join(work, 'docker'),
    FAKE_DOCKER_BUILDX_VERSION: '0.29.1',
    FAKE_DOCKER_BUILD_WARNINGS: join(work, 'warnings.json')
  });
  ledgerBefore = emu.ledger().length;
  try {
    step = await runStepInProcess(io => buildPush({io, docker: FAKE_DOCKER}), {
      workspace: ws,
      runnerTemp: join(work, 'runner-temp'),
      inputs: {
        'api-url': emu.url,
        'api-key': API_KEY,
        'profile-name': 'single',
        context: ws,
        file: join(ws, 'Dockerfile')
      },
      env
    });
  } finally {
    restoreEnv();
  }
}, 120_000);
afterAll(async () => {
  await emu?.close();
  if (work) rmSync(work, {recursive: true, force: true});
});

const TITLE = 'Instructions should be in consistent casing (all lower or all upper)';
const URL = 'https://docs.docker.com/go/dockerfile/rule/consistent-instruction-casing/';
const annotation = (file: string, line: string, cmd: string) => ({
  level: 'warning',
  message: `ConsistentInstructionCasing: Command '${cmd}' should be consistently cased\nMore info: ${URL}`,
  properties: {title: TITLE, file, line}
});

test('build checks: each warning annotates its line of the Dockerfile, in a group', () => {
  expect(step.warnings).toEqual([
    annotation('Dockerfile', '2', 'frOM'),
    annotation('Dockerfile', '3', 'cOpy'),
    annotation('Dockerfile', '6', 'COPy')
  ]);
  expect(step.lines).toContain('::group::Generating GitHub annotations (3 build checks found)');
});

test('the build record: exported with --finalize before the teardown, uploaded after it as docker names it', () => {
  const calls = readFileSync(join(work, 'docker', 'calls.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map(l => JSON.parse(l) as {at: number; argv: string[]});
  const exports = calls.filter(c => c.argv[1] === 'history' && c.argv[2] === 'export');
  expect(exports).toHaveLength(1);
  const call = exports[0] as {at: number; argv: string[]};
  expect(call.argv).toContain('--finalize');
  const ref = call.argv.at(-1) as string;
  const builder = emu.ledger().slice(ledgerBefore)[0];
  expect(builder?.terminatedAt).toBeDefined();
  expect(call.at).toBeLessThanOrEqual(builder?.terminatedAt as number);

  const name = `octo-org~octo-repo~${ref.slice(0, 6).toUpperCase()}.dockerbuild`;
  const artifacts = emu.artifacts.artifacts().filter(a => a.finalized && a.name === name);
  expect(artifacts).toHaveLength(1);
  const artifact = artifacts[0] as (typeof artifacts)[number];
  expect(artifact.createdAt).toBeGreaterThanOrEqual(builder?.terminatedAt as number);
  const file = join(work, 'uploaded.dockerbuild');
  writeFileSync(file, artifact.bytes as Buffer);
  expect(readDockerbuild(file).records.map(r => r['Ref'])).toEqual([ref]);
});
