// A bake whose file and output carry workflow commands runs through the bundled bake action (main then post) in
// the runner harness, which acts on commands as the runner does (also save-state and set-output from the log):
// the bake definition and the metadata (a target's tags and args reach both) print them inside a line, buildx's
// output at a line's start. None is acted on, and post does what main's own state says.
// RBA_DIST: a bundle built elsewhere (`node scripts/bundle.mjs --out DIR bake`), to test before dist/ is.
import {afterAll, afterEach, beforeAll, expect, test} from '@jest/globals';
import {existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {dirname, join, resolve} from 'node:path';
import {fileURLToPath} from 'node:url';
import {Emulator, parseWorkflowCommands, runMainAndPost} from '@remote-builder-actions/emulator';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const DIST = process.env['RBA_DIST'] ?? join(root, 'dist');
const MAIN = join(DIST, 'bake/main/index.js');
const POST = join(DIST, 'bake/post/index.js');
const FAKE_DOCKER_BIN = join(root, 'packages/emulator/fake-docker');
const API_KEY = 'rb_test_key_7c3a9e1f5d';

let emu: Emulator;
let work: string;
let outside: string;

beforeAll(async () => {
  for (const f of [MAIN, POST]) {
    if (!existsSync(f)) throw new Error(`${f} is missing: run \`npm run bundle\` first`);
  }
  emu = await Emulator.start({
    profiles: [{name: 'single', architectures: ['amd64']}],
    apiKeys: [{key: API_KEY, scopes: ['builders']}]
  });
});
afterAll(async () => {
  await emu?.close();
});
afterEach(() => {
  for (const d of [work, outside]) if (d) rmSync(d, {recursive: true, force: true});
});

test('##[cmd] inside a line (in the metadata and the bake definition) and ::cmd:: at a line start (in buildx output): nothing is acted on, in main or in post', async () => {
  work = mkdtempSync(join(tmpdir(), 'bake-inject-'));
  outside = mkdtempSync(join(tmpdir(), 'bake-victim-'));
  mkdirSync(join(outside, 'cli-plugins'));
  writeFileSync(join(outside, 'precious'), 'x');
  const workspace = join(work, 'workspace');
  mkdirSync(workspace, {recursive: true});
  // Both forms in one bake: either one acted on would plant the same state, output, annotation or mask.
  // Tags go to the metadata (image.name) and, with args, to the printed definition.
  const target: Record<string, unknown> = {
    tags: ['u/app:1', `##[save-state name=tmpDir;]${outside}`, `##[set-output name=metadata;]planted`],
    args: {
      STATE: `##[save-state name=buildxDockerConfig;]${outside}`,
      WARN: '##[warning]planted warning',
      MASK: '##[add-mask]planted-mask'
    }
  };
  const builder = JSON.stringify({
    v: 1,
    builderName: 'victim',
    builderIds: ['planted-id'],
    tornDownIds: [],
    certDir: outside,
    apiUrl: 'http://127.0.0.1:9/collect',
    buildxCreated: true
  });
  const print = join(work, 'print.txt');
  const lines = [
    `::save-state name=builder::${builder}`,
    `::save-state name=tmpDir::${outside}`,
    `::save-state name=buildxDockerConfig::${outside}`,
    '::set-output name=metadata::planted',
    '::warning::planted warning',
    '::add-mask::planted-mask'
  ];
  writeFileSync(print, `${lines.join('\n')}\n`);
  const env: Record<string, string> = {
    PATH: `${FAKE_DOCKER_BIN}:${process.env['PATH']}`,
    FAKE_DOCKER_DIR: join(work, 'docker'),
    // The fake docker keeps its builders in buildx's records under DOCKER_CONFIG, as buildx does: the job's own.
    DOCKER_CONFIG: join(work, 'docker-config'),
    FAKE_DOCKER_BUILD_PRINT: print
  };
  writeFileSync(
    join(workspace, 'docker-bake.json'),
    JSON.stringify({group: {default: {targets: ['app']}}, target: {app: target}})
  );

  const job = await runMainAndPost({
    main: MAIN,
    post: POST,
    workDir: work,
    inputs: {'api-url': emu.url, 'api-key': API_KEY, 'profile-name': 'single', source: '.'},
    env
  });

  expect(job.main.stderr).toBe('');
  expect(job.main.exitCode).toBe(0);
  const out = job.main.stdout;
  // The attack was printed, as data.
  expect(out).toContain(`##[save-state name=tmpDir;]${outside}`);
  expect(out).toContain('::save-state name=tmpDir::');
  // No line of it was a command: the log sets no state and no output (GITHUB_STATE would win for main's keys).
  const fromLog = parseWorkflowCommands([...out.split('\n'), ...job.main.stderr.split('\n')]);
  expect({state: fromLog.state, outputs: fromLog.outputs}).toEqual({state: {}, outputs: {}});
  const state = JSON.parse(job.main.state['builder'] ?? '{}') as {builderIds: string[]; apiUrl: string};
  expect(state.apiUrl).toBe(emu.url);
  expect(state.builderIds).not.toContain('planted-id');
  expect(job.main.state['tmpDir']?.startsWith(join(work, 'runner-temp'))).toBe(true);
  expect(job.main.state['buildxDockerConfig']).toBe('');
  expect(JSON.parse(job.main.outputs['metadata'] ?? '{}')).toHaveProperty('app');
  expect(job.main.annotations.map(a => a.message)).not.toContain('planted warning');
  expect(job.main.masks).not.toContain('planted-mask');
  expect(job.post.exitCode).toBe(0);
  expect(job.post.annotations.filter(a => a.level === 'warning')).toEqual([]);
  expect(existsSync(join(outside, 'precious'))).toBe(true);
  expect(existsSync(join(outside, 'cli-plugins'))).toBe(true);
  expect(emu.ledger().filter(e => state.builderIds.includes(e.builderId) && e.terminatedAt === undefined)).toEqual([]);
});
