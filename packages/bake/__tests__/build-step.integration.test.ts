// What bake's step does with what a bake leaves behind, from one bake of three targets: in process (the source,
// not the bundle), against the emulator (builders over loopback HTTP and mutual TLS, GitHub's artifact service)
// with the recording fake docker playing buildx 0.29.1 and writing buildx's metadata warnings and local state
// (FAKE_DOCKER_BUILD_WARNINGS). The step logs on @actions/core; its stdout is read back with the runner
// harness's workflow-command parser.
// - Build checks: every target's warnings on the lines of its Dockerfile. DOCKER_BUILD_CHECKS_ANNOTATIONS off is
//   core's docker/build-checks.test.ts, on annotateBuildChecks (the variable's values on
//   buildChecksAnnotationsEnabled).
// - The build record: one file holds every target's build, exported before the teardown, uploaded after it.
import {afterAll, beforeAll, expect, test} from '@jest/globals';
import {mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {dirname, join, resolve} from 'node:path';
import {fileURLToPath} from 'node:url';
import {Emulator} from '@remote-builder-actions/emulator';
import {RUNNER_DEFAULTS} from '../../emulator/src/harness/runner-env.js';
import {readDockerbuild} from '../../emulator/src/testing/dockerbuild-file.js';
import {runStepInProcess, setProcessEnv, type InProcessStepResult} from '../../emulator/src/testing/in-process-step.js';
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
/** The one bake of this file. */
let step: InProcessStepResult;
let ledgerBefore: number;

beforeAll(async () => {
  emu = await Emulator.start({
    profiles: [{name: 'single', architectures: ['amd64']}],
    apiKeys: [{key: API_KEY, scopes: ['builders']}]
  });
  work = mkdtempSync(join(tmpdir(), 'bake-step-'));
  const ws = join(work, 'workspace');
  mkdirSync(ws, {recursive: true});
  writeFileSync(join(ws, 'lint.Dockerfile'), sourceOf('lint.Dockerfile'));
  writeFileSync(join(ws, 'lint-other.Dockerfile'), sourceOf('lint-other.Dockerfile'));
  writeFileSync(join(ws, 'docker-bake.hcl'), BAKE_FILE);
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
    step = await runStepInProcess(io => bake({io, docker: FAKE_DOCKER}), {
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
  } finally {
    restoreEnv();
  }
}, 120_000);
afterAll(async () => {
  await emu?.close();
  if (work) rmSync(work, {recursive: true, force: true});
});

const MAJORITY = 'All commands within the Dockerfile should use the same casing (either upper or lower)';
test('build checks: every target, the warnings of its Dockerfile on their lines, in the order buildx wrote them', () => {
  const {lines, warnings} = step;
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
});

test("the build record: every target's record in one file, exported before the teardown, uploaded after it, named +2", () => {
  const calls = readFileSync(join(work, 'docker', 'calls.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map(l => JSON.parse(l) as {at: number; argv: string[]});
  const exports = calls.filter(c => c.argv[1] === 'history' && c.argv[2] === 'export');
  expect(exports).toHaveLength(1);
  const refs = (exports[0]?.argv ?? []).slice(-3);
  expect(refs.every(r => /^[a-z0-9]{25}$/.test(r))).toBe(true);
  const builder = emu.ledger().slice(ledgerBefore)[0];
  expect(exports[0]?.at).toBeLessThanOrEqual(builder?.terminatedAt as number);

  const name = `octo-org~octo-repo~${(refs[0] as string).slice(0, 6).toUpperCase()}+2.dockerbuild`;
  const artifact = emu.artifacts.artifacts().find(a => a.finalized && a.name === name);
  expect(artifact?.createdAt).toBeGreaterThanOrEqual(builder?.terminatedAt as number);
  const file = join(work, 'uploaded.dockerbuild');
  writeFileSync(file, artifact?.bytes as Buffer);
  const record = readDockerbuild(file);
  expect(record.records.map(r => r['Ref']).sort()).toEqual([...refs].sort());
  expect(record.records.map(r => (r['FrontendAttrs'] as {target: string}).target).sort()).toEqual([
    'lint',
    'lint-inline',
    'lint-other'
  ]);
});
