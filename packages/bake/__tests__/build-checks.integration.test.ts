// Build-check annotations through bake's step: in process (the source, not the bundle), against the
// emulator over loopback HTTP and mutual TLS, with the recording fake docker writing buildx's metadata
// warnings and local state (FAKE_DOCKER_BUILD_WARNINGS). The step logs on @actions/core; its stdout is read
// back with the runner harness's workflow-command parser. DOCKER_BUILD_CHECKS_ANNOTATIONS off is core's
// docker/build-checks.test.ts, on annotateBuildChecks (and the variable's values on buildChecksAnnotationsEnabled).
import {afterAll, afterEach, beforeAll, beforeEach, expect, test} from '@jest/globals';
import {mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {dirname, join, resolve} from 'node:path';
import {fileURLToPath} from 'node:url';
import {Emulator} from '@remote-builder-actions/emulator';
import {runStepInProcess, setProcessEnv} from '../../emulator/src/testing/in-process-step.js';
import {bake} from '../src/bake.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const FAKE_DOCKER = join(root, 'packages/emulator/fake-docker/docker');
const FIXTURE = join(root, 'packages/core/__tests__/docker/fixtures/build-checks/metadata-bake.json');
const API_KEY = 'rb_test_key_5b8e2d7a4c';
/**
 * actions-toolkit's metadata-bake.json: 13 warnings of a bake of lint.Dockerfile, lint-other.Dockerfile and
 * an inline Dockerfile, all at the metadata's top level.
 */
const WARNINGS = (JSON.parse(readFileSync(FIXTURE, 'utf8')) as Record<string, unknown>)['buildx.build.warnings'] as {
  sourceInfo: {filename: string; data: string};
}[];
const sourceOf = (filename: string): string =>
  Buffer.from(WARNINGS.find(w => w.sourceInfo.filename === filename)?.sourceInfo.data ?? '', 'base64').toString('utf8');
const BAKE_FILE = `target "lint" {
  dockerfile = "lint.Dockerfile"
}
target "lint-other" {
  dockerfile = "lint-other.Dockerfile"
}
target "lint-inline" {
  dockerfile-inline = "FRoM alpine"
}
group "default" {
  targets = ["lint", "lint-other", "lint-inline"]
}
`;

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
  work = mkdtempSync(join(tmpdir(), 'bake-checks-'));
  ws = join(work, 'workspace');
  mkdirSync(ws, {recursive: true});
  writeFileSync(join(ws, 'lint.Dockerfile'), sourceOf('lint.Dockerfile'));
  writeFileSync(join(ws, 'lint-other.Dockerfile'), sourceOf('lint-other.Dockerfile'));
  writeFileSync(join(ws, 'docker-bake.hcl'), BAKE_FILE);
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

/** Runs bake's main step with these inputs; returns what it printed, as the runner reads it. */
function runStep(inputs: Record<string, string>, env: Record<string, string> = {}) {
  return runStepInProcess(io => bake({io, docker: FAKE_DOCKER}), {
    workspace: ws,
    runnerTemp: join(work, 'runner-temp'),
    inputs: {'api-url': emu.url, 'api-key': API_KEY, 'profile-name': 'single', ...inputs},
    env
  });
}

const MAJORITY = 'All commands within the Dockerfile should use the same casing (either upper or lower)';

test('every target: the warnings of its Dockerfile on their lines, in the order buildx wrote them', async () => {
  const {lines, warnings} = await runStep({source: ws, files: join(ws, 'docker-bake.hcl')});
  // The inline Dockerfile came from stdin: its warning ("Dockerfile", line 1) is not annotated.
  expect(warnings.map(w => [w.properties['file'], w.properties['line']])).toEqual([
    ['lint-other.Dockerfile', '17'],
    ['lint-other.Dockerfile', '20'],
    ['lint-other.Dockerfile', '24'],
    ['lint.Dockerfile', '20'],
    ['lint.Dockerfile', '21'],
    ['lint.Dockerfile', '26'],
    ['lint.Dockerfile', '28'],
    ['lint-other.Dockerfile', '23'],
    ['lint.Dockerfile', '17'],
    ['lint.Dockerfile', '18'],
    ['lint.Dockerfile', '22'],
    ['lint-other.Dockerfile', '18']
  ]);
  expect(warnings[0]).toEqual({
    level: 'warning',
    message:
      "ConsistentInstructionCasing: Command 'frOM' should match the case of the command majority (uppercase)\nMore info: https://docs.docker.com/go/dockerfile/rule/consistent-instruction-casing/",
    properties: {title: MAJORITY, file: 'lint-other.Dockerfile', line: '17'}
  });
  expect(warnings[4]?.properties['title']).toBe(
    'The MAINTAINER instruction is deprecated, use a label instead to define an image author'
  );
  expect(lines).toContain('::group::Generating GitHub annotations (12 build checks found)');
}, 60_000);
