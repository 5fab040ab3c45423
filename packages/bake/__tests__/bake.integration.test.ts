// Runs the bundled bake action (dist/), main then post, through the runner harness against the emulator
// over loopback HTTP and mutual TLS, with the recording fake docker on PATH (it resolves the bake files
// in the workspace for `bake --print` and writes one metadata entry per target).
import {afterAll, afterEach, beforeAll, describe, expect, test} from '@jest/globals';
import {createHash} from 'node:crypto';
import {existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {dirname, join, resolve} from 'node:path';
import {fileURLToPath} from 'node:url';
import {Emulator, runAction, runMainAndPost, type ActionRunResult} from '@remote-builder-actions/emulator';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const MAIN = join(root, 'dist/bake/main/index.js');
const POST = join(root, 'dist/bake/post/index.js');
const CONFIGURE_MAIN = join(root, 'dist/configure/main/index.js');
const CONFIGURE_POST = join(root, 'dist/configure/post/index.js');
const FAKE_DOCKER_BIN = join(root, 'packages/emulator/fake-docker');
const API_KEY = 'rb_test_key_3f9c1e7b2d';
const RUN_URL = 'https://github.com/octo-org/octo-repo/actions/runs/1/attempts/1';
const GIT_CONTEXT = 'https://github.com/octo-org/octo-repo.git#ffac537e6cbbf934b08745a378932722df287a53';
const BAKE_HCL = `// The bake file of the tests.
group "default" {
  targets = ["app"]
}
group "all" {
  targets = ["web", "api"]
}
target "app" {
  tags = ["user/app:latest"]
}
target "_multi" {
  platforms = ["linux/amd64", "linux/arm64"]
}
target "web" {
  inherits = ["_multi"]
  dockerfile = "web.Dockerfile"
  tags = ["user/web:latest"]
}
target "api" {
  inherits = ["_multi"]
  dockerfile = "api.Dockerfile"
  tags = ["user/api:latest"]
}
`;

let emu: Emulator;
let work: string;

interface Call {
  argv: string[];
  cwd: string;
  metadataWarnings?: string;
  gitAuthTokenSha256?: string;
}

beforeAll(async () => {
  for (const f of [MAIN, POST, CONFIGURE_MAIN, CONFIGURE_POST]) {
    if (!existsSync(f)) throw new Error(`${f} is missing: run \`npm run bundle\` first`);
  }
  emu = await Emulator.start({
    profiles: [
      {name: 'single', architectures: ['amd64']},
      {name: 'multi', architectures: ['amd64', 'arm64'], buildersPerAssignment: 2}
    ],
    apiKeys: [{key: API_KEY, scopes: ['builders']}]
  });
});
afterAll(async () => {
  await emu?.close();
});

/** Every step run by a test; afterEach scans them all for secrets. */
let ran: ActionRunResult[] = [];

afterEach(() => {
  emu.clearFaults();
  if (work) rmSync(work, {recursive: true, force: true});
  // No step may print the API key or any line of any client key the emulator handed out.
  const secrets = [
    API_KEY,
    ...emu.issuedClientKeys().flatMap(k => k.split('\n').filter(l => l.length >= 8 && !l.startsWith('-----')))
  ];
  const leaks = ran.flatMap(r =>
    secrets.filter(s => everything(r).includes(s)).map(s => `${s.slice(0, 6)}… in a step's output`)
  );
  ran = [];
  expect(leaks).toEqual([]);
});

/** A job whose workspace holds the bake file (in `bakeDir` under it). */
function job(inputs: Record<string, string>, env: Record<string, string> = {}, bakeDir = '.') {
  work = mkdtempSync(join(tmpdir(), 'bake-it-'));
  const dir = join(work, 'workspace', bakeDir);
  mkdirSync(dir, {recursive: true});
  writeFileSync(join(dir, 'docker-bake.hcl'), BAKE_HCL);
  return {
    main: MAIN,
    post: POST,
    workDir: work,
    inputs: {'api-url': emu.url, 'api-key': API_KEY, source: '.', ...inputs},
    // The fake docker keeps its builders in buildx's records under DOCKER_CONFIG, as buildx does: the job's own.
    env: {
      PATH: `${FAKE_DOCKER_BIN}:${process.env.PATH}`,
      FAKE_DOCKER_DIR: join(work, 'docker'),
      DOCKER_CONFIG: join(work, 'docker-config'),
      ...env
    }
  };
}

async function runJob(opts: Parameters<typeof runMainAndPost>[0]) {
  const res = await runMainAndPost(opts);
  ran.push(res.main, res.post);
  return res;
}

async function runStep(opts: Parameters<typeof runAction>[0]) {
  const res = await runAction(opts);
  ran.push(res);
  return res;
}

function calls(): Call[] {
  const file = join(work, 'docker', 'calls.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map(l => JSON.parse(l) as Call);
}

const isPrint = (c: Call): boolean => c.argv[1] === 'bake' && c.argv.includes('--print');
const isBake = (c: Call): boolean => c.argv[1] === 'bake' && !c.argv.includes('--print');

function stateOf(r: ActionRunResult): {builderIds: string[]; builderName: string; certDir: string} {
  return JSON.parse(r.state['builder'] ?? '{}') as {builderIds: string[]; builderName: string; certDir: string};
}

function live(ids: string[]) {
  return emu.ledger().filter(e => ids.includes(e.builderId) && e.terminatedAt === undefined);
}

function errorOf(r: ActionRunResult): string {
  return r.annotations.find(a => a.level === 'error')?.message ?? '';
}

/** Every byte a step wrote anywhere, minus the lines that register masks. */
function everything(r: ActionRunResult): string {
  const text = [r.stdout, r.stderr, r.rawFiles.output, r.rawFiles.state, r.rawFiles.env, r.rawFiles.summary].join('\n');
  return text
    .split('\n')
    .filter(l => !l.startsWith('::add-mask::'))
    .join('\n');
}

function digestOf(target: string): string {
  return `sha256:${createHash('sha256').update(`image:${target}`).digest('hex')}`;
}

describe('bake action (bundled) against the emulator', () => {
  test('bakes on an assigned builder, in a local source (v7): --print first, docker v6 argv, metadata per target, summary, teardown in main', async () => {
    const j = job({'profile-name': 'single', push: 'true', source: 'deploy'}, {}, 'deploy');
    const source = join(work, 'workspace', 'deploy');
    const main = await runStep({script: MAIN, inputs: j.inputs, env: j.env, workDir: work});
    expect(main.stderr).toBe('');
    expect(main.exitCode).toBe(0);

    const {builderIds, builderName} = stateOf(main);
    expect(builderIds).toHaveLength(1);
    expect(main.masks).toContain(API_KEY);
    const all = calls();
    // What must happen before what: the local work (buildx version, the definition) before the builder is
    // set up, the builder before the bake, and its removal last. Not asserted: the order of work that may
    // run concurrently.
    const kinds = all.map(c => (isPrint(c) ? 'print' : c.argv[1]));
    // No `inspect --bootstrap`: the builder's BuildKit told its version (Control/Info).
    expect([...kinds].sort()).toEqual(['bake', 'create', 'print', 'rm', 'version']);
    const at = (k: string) => kinds.indexOf(k);
    expect(at('version')).toBeLessThan(at('create'));
    expect(at('print')).toBeLessThan(at('create'));
    expect(at('create')).toBeLessThan(at('bake'));
    expect(kinds.at(-1)).toBe('rm');
    const print = all.find(isPrint) as Call;
    // No positional argument: both bake calls run in the source and read the files there.
    expect(print.argv).toEqual(['buildx', 'bake', '--push', '--print']);
    expect(print.cwd).toBe(source);
    const bake = all.find(isBake) as Call;
    const meta = bake.argv[bake.argv.indexOf('--metadata-file') + 1] as string;
    expect(meta.startsWith(join(work, 'runner-temp'))).toBe(true);
    // docker/bake-action v6 argv for these inputs, plus --builder at docker's place for it.
    expect(bake.argv).toEqual([
      'buildx',
      'bake',
      '--metadata-file',
      meta,
      '--set',
      `app.attest=type=provenance,mode=max,builder-id=${RUN_URL}`,
      '--builder',
      builderName,
      '--push'
    ]);
    expect(bake.cwd).toBe(source);
    expect(bake.metadataWarnings).toBe('true');
    // Main keeps only bake's definition in its private folder, for the summary post writes; post removes it.
    expect(existsSync(meta)).toBe(false);
    expect(readdirSync(dirname(meta))).toEqual(['bake-definition.json']);

    const metadata = JSON.parse(main.outputs['metadata'] ?? '') as Record<string, Record<string, string>>;
    expect(Object.keys(metadata)).toEqual(['app']);
    expect(metadata['app']?.['containerimage.digest']).toBe(digestOf('app'));
    expect(metadata['app']?.['image.name']).toBe('user/app:latest');

    // One job-summary block per step, written by post.
    expect(main.summary).toBe('');
    // Billing stops when the bake ends.
    expect(live(builderIds)).toEqual([]);
    expect(emu.ledger().find(e => e.builderId === builderIds[0])?.reason).toBe('teardown');
    expect(main.stdout).toMatch(/Tore down .* after the build; billing stopped/);

    const post = await runStep({script: POST, inputs: j.inputs, env: j.env, workDir: work, state: main.state});
    expect(post.exitCode).toBe(0);
    expect(post.annotations.filter(a => a.level === 'warning')).toEqual([]);
    expect(existsSync(dirname(meta))).toBe(false);
    expect(post.stdout).toMatch(/already torn down by main/);
    expect(calls().filter(c => c.argv[1] === 'rm')).toHaveLength(1);
    expect(post.summary).toContain('single');
    expect(post.summary).toContain('app');
    expect(post.summary).toContain(digestOf('app'));
    expect(post.summary).toMatch(/setup .* · build and push /);
  });

  test('multi-target, multi-platform: every target checked against the nodes, baked on both', async () => {
    const j = job(
      {'profile-name': 'multi', targets: 'all', set: '*.output=type=image,push=false'},
      {FAKE_DOCKER_BUILDX_VERSION: '0.19.2'}
    );
    const {main, post} = await runJob(j);
    expect(main.exitCode).toBe(0);
    const {builderIds, builderName} = stateOf(main);
    expect(builderIds).toHaveLength(2);
    // One create (a placeholder node, before any builder was ready); both nodes in buildx's record, one per
    // builder with its platform.
    const creates = calls().filter(c => c.argv[1] === 'create');
    expect(creates.map(c => c.argv.at(-1))).toEqual(['tcp://127.0.0.1:1']);
    for (const arch of ['amd64', 'arm64']) {
      expect(main.stdout).toMatch(
        new RegExp(`^Node \\S+: BuildKit \\S+ at tcp://127\\.0\\.0\\.1:\\d+, linux/${arch}$`, 'm')
      );
    }
    const print = calls().find(isPrint) as Call;
    expect(print.argv).toEqual(['buildx', 'bake', '--set', '*.output=type=image,push=false', '--print', 'all']);
    const bake = calls().find(isBake) as Call;
    const meta = bake.argv[bake.argv.indexOf('--metadata-file') + 1] as string;
    expect(bake.argv).toEqual([
      'buildx',
      'bake',
      '--allow',
      'fs=*',
      '--set',
      '*.output=type=image,push=false',
      '--metadata-file',
      meta,
      '--set',
      `api.attest=type=provenance,mode=max,builder-id=${RUN_URL}`,
      '--set',
      `web.attest=type=provenance,mode=max,builder-id=${RUN_URL}`,
      '--builder',
      builderName,
      'all'
    ]);
    const metadata = JSON.parse(main.outputs['metadata'] ?? '') as Record<string, Record<string, string>>;
    expect(Object.keys(metadata).sort()).toEqual(['api', 'web']);
    expect(metadata['web']?.['containerimage.digest']).toBe(digestOf('web'));
    expect(post.summary).toContain('web');
    expect(post.summary).toContain('api');
    expect(post.summary).toContain('linux/amd64, linux/arm64');
    expect(post.summary).toContain('multi');
    expect(post.exitCode).toBe(0);
    expect(live(builderIds)).toEqual([]);
  });

  test("builder input, remote definition: bakes this repository's Git context on the builder made by the configure action, with the token as docker passes it; nothing assigned or torn down, no secret printed", async () => {
    const token = 'ghs_baketoken0123456789abcdef';
    const j = job({});
    const configured = await runStep({
      script: CONFIGURE_MAIN,
      workDir: work,
      env: j.env,
      inputs: {'api-url': emu.url, 'api-key': API_KEY, 'profile-name': 'multi', use: 'false'}
    });
    expect(configured.exitCode).toBe(0);
    const shared = configured.outputs['name'] as string;
    const ledgerBefore = emu.ledger().length;
    const assignsBefore = emu.requests().filter(r => r.route === 'assign').length;

    // The remote definition by default (source empty): this repository's Git context.
    const {main, post} = await runJob({
      ...j,
      inputs: {builder: shared, source: '', 'github-token': token, targets: 'web'}
    });
    expect(main.exitCode).toBe(0);
    // Written empty at main's start (every key post reads is), never set: nothing was assigned.
    expect(main.state['builder']).toBe('');
    const print = calls().find(isPrint) as Call;
    const bake = calls().find(isBake) as Call;
    expect(print.argv).toEqual(['buildx', 'bake', GIT_CONTEXT, '--print', 'web']);
    expect(bake.argv[2]).toBe(GIT_CONTEXT);
    expect(bake.argv[bake.argv.length - 1]).toBe('web');
    // BUILDX_BAKE_GIT_AUTH_TOKEN reaches both calls (recorded as a hash), never the argv.
    const sha = createHash('sha256').update(token).digest('hex');
    expect(print.gitAuthTokenSha256).toBe(sha);
    expect(bake.gitAuthTokenSha256).toBe(sha);
    expect(calls().some(c => c.argv.join(' ').includes(token))).toBe(false);
    expect(main.masks).toContain(token);
    // The API key and every client key line are checked for every step in afterEach.
    for (const r of [main, post]) expect(everything(r).includes(token)).toBe(false);
    expect(bake.argv.slice(bake.argv.indexOf('--builder'), bake.argv.indexOf('--builder') + 2)).toEqual([
      '--builder',
      shared
    ]);
    expect(
      calls().some(c => c.argv[1] === 'inspect' && c.argv.includes('--bootstrap') && c.argv.includes(shared))
    ).toBe(true);
    expect(JSON.parse(main.outputs['metadata'] ?? '{}')).toHaveProperty('web');
    expect(post.summary).toContain(`buildx builder \`${shared}\``);
    expect(post.summary).toContain('No builder was assigned');
    expect(post.exitCode).toBe(0);
    expect(post.stdout).toMatch(/nothing to tear down/);
    expect(emu.ledger().length).toBe(ledgerBefore);
    expect(emu.requests().filter(r => r.route === 'assign').length).toBe(assignsBefore);
    const sharedIds = configured.outputs['builder-ids']?.split(',') ?? [];
    expect(live(sharedIds)).toHaveLength(2);

    const configurePost = await runStep({
      script: CONFIGURE_POST,
      workDir: work,
      env: j.env,
      inputs: {'api-url': emu.url, 'api-key': API_KEY},
      state: configured.state
    });
    expect(configurePost.exitCode).toBe(0);
    expect(live(sharedIds)).toEqual([]);
  });

  test('platform guard: a target asking for arm64 on an amd64-only profile fails before baking; ledger clean', async () => {
    const j = job({'profile-name': 'single', targets: 'web'});
    const main = await runStep({script: MAIN, inputs: j.inputs, env: j.env, workDir: work});
    expect(main.exitCode).toBe(1);
    const error = errorOf(main);
    expect(error).toMatch(/target "web" asks for arm64/);
    expect(error).toMatch(/enable arm64 on builder profile "single" in the web UI/);
    expect(error).toMatch(/"web\.platform=linux\/amd64"/);
    expect(error).toMatch(/exec format error/);
    expect(calls().filter(isBake)).toEqual([]);
    const {builderIds} = stateOf(main);
    expect(builderIds).toHaveLength(1);
    expect(live(builderIds)).toEqual([]);
    const post = await runStep({script: POST, inputs: j.inputs, env: j.env, workDir: work, state: main.state});
    expect(post.exitCode).toBe(0);
    expect(post.stdout).toMatch(/already torn down by main/);
  });
});
