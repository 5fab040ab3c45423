// A build that prints workflow commands, in every form the runner knows, runs through the bundled build-push
// action (main then post) in the runner harness, which acts on commands as the runner does (also save-state and
// set-output from the log): none is acted on, and post does what main's own state says. The attack's planted
// state points at a foreign service URL, a folder outside the step's temp folder and a foreign DOCKER_CONFIG.
// RBA_DIST: a bundle built elsewhere (`node scripts/bundle.mjs --out DIR build-push`), to test before dist/ is.
import {afterAll, afterEach, beforeAll, expect, test} from '@jest/globals';
import {existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {dirname, join, resolve} from 'node:path';
import {fileURLToPath} from 'node:url';
import {Emulator, parseWorkflowCommands, runMainAndPost} from '@remote-builder-actions/emulator';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const DIST = process.env['RBA_DIST'] ?? join(root, 'dist');
const MAIN = join(DIST, 'build-push/main/index.js');
const POST = join(DIST, 'build-push/post/index.js');
const FAKE_DOCKER_BIN = join(root, 'packages/emulator/fake-docker');
const API_KEY = 'rb_test_key_9d2e4a6c1b';
const FOREIGN_API = 'http://127.0.0.1:9/collect';

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

/** What the attack plants: post would send the key to FOREIGN_API, rm -rf `outside`, run buildx from it. */
function planted(): {builder: string; outside: string} {
  const builder = JSON.stringify({
    v: 1,
    builderName: 'victim',
    builderIds: ['planted-id'],
    tornDownIds: [],
    certDir: outside,
    apiUrl: FOREIGN_API,
    buildxCreated: true
  });
  return {builder, outside};
}

test('::cmd:: at a line start in buildx output and ##[cmd] inside a line (a RUN step of the Dockerfile): nothing is acted on, in main or in post', async () => {
  work = mkdtempSync(join(tmpdir(), 'build-push-inject-'));
  outside = mkdtempSync(join(tmpdir(), 'build-push-victim-'));
  mkdirSync(join(outside, 'cli-plugins'));
  writeFileSync(join(outside, 'precious'), 'x');
  const {builder} = planted();
  const workspace = join(work, 'workspace');
  mkdirSync(workspace, {recursive: true});
  const lines = [
    // A block of the build's own, ended: neither ends ours.
    '::stop-commands::build-token',
    '::build-token::',
    `::save-state name=builder::${builder}`,
    `::save-state name=tmpDir::${outside}`,
    `::save-state name=buildxDockerConfig::${outside}`,
    '::set-output name=digest::sha256:planted',
    '::warning::planted warning',
    '::add-mask::planted-mask'
  ];
  // Both forms in one build: either one acted on would plant the same state, output, annotation or mask.
  const print = join(work, 'print.txt');
  writeFileSync(print, `${lines.join('\n')}\n`);
  const env: Record<string, string> = {
    PATH: `${FAKE_DOCKER_BIN}:${process.env['PATH']}`,
    FAKE_DOCKER_DIR: join(work, 'docker'),
    // The fake docker keeps its builders in buildx's records under DOCKER_CONFIG, as buildx does: the job's own.
    DOCKER_CONFIG: join(work, 'docker-config'),
    FAKE_DOCKER_BUILD_PRINT: print
  };
  // The runner reads `##[name k=v;]data` anywhere in a line; `;` and `]` in data are %3B and %5D.
  const legacy = lines.slice(2).map(l => {
    const m = /^::([\w-]+)(?: name=([\w]+))?::(.*)$/.exec(l) as RegExpExecArray;
    const data = (m[3] as string).replace(/;/g, '%3B').replace(/]/g, '%5D');
    return `##[${m[1]}${m[2] ? ` name=${m[2]};` : ''}]${data}`;
  });
  writeFileSync(join(workspace, 'Dockerfile'), `FROM alpine:3.20\n${legacy.map(l => `RUN echo '${l}'`).join('\n')}\n`);

  const job = await runMainAndPost({
    main: MAIN,
    post: POST,
    workDir: work,
    inputs: {
      'api-url': emu.url,
      'api-key': API_KEY,
      'profile-name': 'single',
      context: '.',
      push: 'true',
      tags: 'u/a:1'
    },
    env
  });

  // The attack was printed, as data: the build output went to the log whole.
  expect(job.main.stderr).toBe('');
  const out = job.main.stdout;
  expect(out).toContain('::save-state name=tmpDir::');
  expect(out).toContain('##[save-state name=tmpDir;]');
  expect(job.main.exitCode).toBe(0);
  // No line of it was a command: the log sets no state and no output (GITHUB_STATE would win for main's keys).
  const fromLog = parseWorkflowCommands([...out.split('\n'), ...job.main.stderr.split('\n')]);
  expect({state: fromLog.state, outputs: fromLog.outputs}).toEqual({state: {}, outputs: {}});
  // Main: nothing planted reached the state, the outputs, the annotations or the masks.
  const state = JSON.parse(job.main.state['builder'] ?? '{}') as {
    builderIds: string[];
    apiUrl: string;
    certDir: string;
  };
  expect(state.apiUrl).toBe(emu.url);
  expect(state.builderIds).not.toContain('planted-id');
  expect(job.main.state['tmpDir']?.startsWith(join(work, 'runner-temp'))).toBe(true);
  expect(job.main.state['buildxDockerConfig']).toBe('');
  expect(job.main.outputs['digest']).toBe(`sha256:${'0'.repeat(64)}`);
  expect(job.main.annotations.map(a => a.message)).not.toContain('planted warning');
  expect(job.main.masks).not.toContain('planted-mask');
  // Post: cleaned up what main made, refused nothing (nothing planted arrived), left the victim folder alone.
  expect(job.post.exitCode).toBe(0);
  expect(job.post.annotations.filter(a => a.level === 'warning')).toEqual([]);
  expect(existsSync(join(outside, 'precious'))).toBe(true);
  expect(existsSync(join(outside, 'cli-plugins'))).toBe(true);
  expect(emu.ledger().filter(e => state.builderIds.includes(e.builderId) && e.terminatedAt === undefined)).toEqual([]);
});
