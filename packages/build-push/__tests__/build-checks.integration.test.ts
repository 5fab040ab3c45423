// Build-check annotations through build-push's step: in process (the source, not the bundle), against the
// emulator over loopback HTTP and mutual TLS, with the recording fake docker writing buildx's metadata
// warnings and local state (FAKE_DOCKER_BUILD_WARNINGS). The step logs on @actions/core; its stdout is read
// back with the runner harness's workflow-command parser. One build proves the path from the fake buildx's
// metadata and local state to the annotations; the other cases (the default Git context, and
// DOCKER_BUILD_CHECKS_ANNOTATIONS off) are core's docker/build-checks.test.ts, on annotateBuildChecks.
import {afterAll, afterEach, beforeAll, beforeEach, expect, test} from '@jest/globals';
import {mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {dirname, join, resolve} from 'node:path';
import {fileURLToPath} from 'node:url';
import {Emulator} from '@remote-builder-actions/emulator';
import {runStepInProcess, setProcessEnv} from '../../emulator/src/testing/in-process-step.js';
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
let ws: string;
let restoreEnv: () => void;

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
  work = mkdtempSync(join(tmpdir(), 'build-push-checks-'));
  ws = join(work, 'workspace');
  mkdirSync(ws, {recursive: true});
  writeFileSync(join(ws, 'Dockerfile'), DOCKERFILE);
  writeFileSync(join(work, 'warnings.json'), JSON.stringify(WARNINGS));
  // The fake docker and buildx's config folder (where the refs' local state goes) come from the process env.
  restoreEnv = setProcessEnv({
    BUILDX_CONFIG: join(work, 'buildx'),
    FAKE_DOCKER_DIR: join(work, 'docker'),
    FAKE_DOCKER_BUILD_WARNINGS: join(work, 'warnings.json')
  });
});
afterEach(() => {
  restoreEnv();
  rmSync(work, {recursive: true, force: true});
});

/** Runs build-push's main step with these inputs; returns what it printed, as the runner reads it. */
function runStep(inputs: Record<string, string>, env: Record<string, string> = {}) {
  return runStepInProcess(io => buildPush({io, docker: FAKE_DOCKER}), {
    workspace: ws,
    runnerTemp: join(work, 'runner-temp'),
    inputs: {'api-url': emu.url, 'api-key': API_KEY, 'profile-name': 'single', ...inputs},
    env
  });
}

const TITLE = 'Instructions should be in consistent casing (all lower or all upper)';
const URL = 'https://docs.docker.com/go/dockerfile/rule/consistent-instruction-casing/';
const annotation = (file: string, line: string, cmd: string) => ({
  level: 'warning',
  message: `ConsistentInstructionCasing: Command '${cmd}' should be consistently cased\nMore info: ${URL}`,
  properties: {title: TITLE, file, line}
});

test('a local context: each warning annotates its line of the Dockerfile, in a group', async () => {
  const {lines, warnings} = await runStep({context: ws, file: join(ws, 'Dockerfile')});
  expect(warnings).toEqual([
    annotation('Dockerfile', '2', 'frOM'),
    annotation('Dockerfile', '3', 'cOpy'),
    annotation('Dockerfile', '6', 'COPy')
  ]);
  expect(lines).toContain('::group::Generating GitHub annotations (3 build checks found)');
}, 60_000);
