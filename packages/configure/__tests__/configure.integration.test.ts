// Runs the bundled configure action (dist/), main then post, through the runner harness against the
// emulator over real loopback HTTP and mutual TLS, with the recording fake docker on PATH.
import {afterAll, afterEach, beforeAll, describe, expect, test} from '@jest/globals';
import {existsSync, mkdtempSync, readFileSync, rmSync, statSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {dirname, join, resolve} from 'node:path';
import {fileURLToPath} from 'node:url';
import {Emulator, runAction, runMainAndPost, type ActionRunResult} from '@remote-builder-actions/emulator';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const MAIN = join(root, 'dist/configure/main/index.js');
const POST = join(root, 'dist/configure/post/index.js');
const FAKE_DOCKER_BIN = join(root, 'packages/emulator/fake-docker');
const API_KEY = 'rb_test_key_7f3a9c1e5d';

let emu: Emulator;
let work: string;

beforeAll(async () => {
  if (!existsSync(MAIN) || !existsSync(POST)) throw new Error('dist/configure is missing: run `npm run bundle` first');
  emu = await Emulator.start({
    profiles: [
      {name: 'single', architectures: ['amd64']},
      {name: 'trio', architectures: ['amd64', 'arm64'], buildersPerAssignment: 3},
      {name: 'delayed', readyDelayMs: 1500, hostFormat: 'tcp'}
    ],
    apiKeys: [{key: API_KEY, scopes: ['builders']}]
  });
});
afterAll(async () => {
  await emu?.close();
});
afterEach(() => {
  emu.clearFaults();
  if (work) rmSync(work, {recursive: true, force: true});
});

function job(inputs: Record<string, string>, env: Record<string, string> = {}) {
  work = mkdtempSync(join(tmpdir(), 'configure-it-'));
  return {
    main: MAIN,
    post: POST,
    workDir: work,
    inputs: {'api-url': emu.url, 'api-key': API_KEY, ...inputs},
    // The fake docker keeps its builders in buildx's records under DOCKER_CONFIG, as buildx does: the job's own.
    env: {
      PATH: `${FAKE_DOCKER_BIN}:${process.env.PATH}`,
      FAKE_DOCKER_DIR: join(work, 'docker'),
      DOCKER_CONFIG: join(work, 'docker-config'),
      ...env
    }
  };
}

function dockerCalls(): string[][] {
  const file = join(work, 'docker', 'calls.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map(l => (JSON.parse(l) as {argv: string[]}).argv);
}

function assignedBuilders(ids: string[]) {
  return emu.ledger().filter(e => ids.includes(e.builderId) && e.terminatedAt === undefined);
}

/** Every step run by a test; afterEach scans them all for secrets. */
let ran: ActionRunResult[] = [];

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

/** Every byte a step wrote anywhere, minus the lines that register masks. */
function everything(r: ActionRunResult): string {
  const text = [r.stdout, r.stderr, r.rawFiles.output, r.rawFiles.state, r.rawFiles.env, r.rawFiles.summary].join('\n');
  return text
    .split('\n')
    .filter(l => !l.startsWith('::add-mask::'))
    .join('\n');
}

afterEach(() => {
  // No step of any test may print the API key or any line of any client key the emulator handed out.
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

describe('configure action (bundled) against the emulator', () => {
  test('one builder: outputs, private certificate files, exports, buildx calls, and post tears it down', async () => {
    const j = job({'profile-name': 'single'});
    const main = await runStep({script: MAIN, inputs: j.inputs, env: j.env, workDir: j.workDir});
    expect(main.stderr).toBe('');
    expect(main.exitCode).toBe(0);
    // The certificate files are private while the builder lives.
    const node = (JSON.parse(main.outputs['nodes']) as Record<string, string>[])[0];
    for (const f of [node.cacert, node.cert, node.key]) expect(statSync(f).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(node.key)).mode & 0o777).toBe(0o700);
    expect(statSync(dirname(dirname(node.key))).mode & 0o777).toBe(0o700);
    expect(readFileSync(node.key, 'utf8')).toMatch(/-----BEGIN PRIVATE KEY-----/);
    expect(main.masks).toContain(API_KEY);
    // The builder's node in buildx's record (written there in the place of the placeholder, see below).
    const record = JSON.parse(
      readFileSync(join(work, 'docker-config', 'buildx', 'instances', main.outputs['name']), 'utf8')
    ) as {Nodes: {Name: string; Endpoint: string; Platforms: unknown; DriverOpts: Record<string, string>}[]};
    expect(record.Nodes).toEqual([
      expect.objectContaining({
        Name: node.name,
        Endpoint: node.endpoint,
        Platforms: [{architecture: 'amd64', os: 'linux'}],
        DriverOpts: {cacert: node.cacert, cert: node.cert, key: node.key}
      })
    ]);
    const post = await runStep({script: POST, inputs: j.inputs, env: j.env, workDir: j.workDir, state: main.state});
    const ids = main.outputs['builder-ids'].split(',');
    expect(ids).toHaveLength(1);
    expect(main.outputs['platforms']).toBe('linux/amd64');
    const nodes = JSON.parse(main.outputs['nodes']) as Record<string, string>[];
    expect(nodes).toHaveLength(1);
    expect(nodes[0]).toMatchObject({'builder-id': ids[0], platforms: 'linux/amd64'});
    expect(nodes[0].endpoint).toMatch(/^tcp:\/\/127\.0\.0\.1:\d+$/);
    expect(main.exportedEnv).toEqual({
      DOCKER_BUILD_SUMMARY: 'false',
      DOCKER_BUILD_RECORD_UPLOAD: 'false',
      DOCKER_BUILD_CHECKS_ANNOTATIONS: 'false'
    });
    expect(main.summary).toBe('');
    expect(post.summary).toContain(ids[0]);

    const calls = dockerCalls();
    const name = main.outputs['name'];
    expect(calls[0]).toEqual(['buildx', 'version']);
    // The buildx builder is made right after the assignment, its node a placeholder that the ready builder's
    // node replaced in buildx's record: no buildx process after the builder was ready.
    expect(calls[1]).toEqual([
      'buildx',
      'create',
      '--name',
      name,
      '--node',
      nodes[0].name,
      '--driver',
      'remote',
      '--driver-opt',
      `cacert=${nodes[0].cacert},cert=${nodes[0].cert},key=${nodes[0].key}`,
      '--use',
      'tcp://127.0.0.1:1'
    ]);
    // The builder's BuildKit told its version (Control/Info): buildx does not boot it.
    expect(calls.filter(c => c[1] === 'inspect')).toEqual([]);
    expect(main.stdout).toMatch(/Node \S+: BuildKit v0\.13\.2 at tcp:\/\/127\.0\.0\.1:\d+, linux\/amd64/);

    // The state carries breadcrumbs only.
    const state = JSON.parse(main.state['builder']) as Record<string, unknown>;
    expect(Object.keys(state).sort()).toEqual([
      'apiUrl',
      'builderIds',
      'builderName',
      'buildxCreated',
      'certDir',
      'profile',
      'tornDownIds',
      'v'
    ]);
    expect(post.exitCode).toBe(0);
    expect(post.annotations.filter(a => a.level === 'warning')).toEqual([]);
    expect(dockerCalls().slice(2)).toEqual([['buildx', 'rm', name]]);
    expect(existsSync(state['certDir'] as string)).toBe(false);
    expect(existsSync(node.key)).toBe(false);
    expect(assignedBuilders(ids)).toEqual([]);
    expect(emu.ledger().find(e => e.builderId === ids[0])?.reason).toBe('teardown');
  });

  test('three builders on a multi-arch profile become one buildx builder: one create, the nodes in its record', async () => {
    const {main, post} = await runJob(job({'profile-name': 'trio', use: 'false'}));
    expect(main.exitCode).toBe(0);
    const ids = main.outputs['builder-ids'].split(',');
    expect(ids).toHaveLength(3);
    expect(main.outputs['platforms']).toBe('linux/amd64,linux/arm64');
    // The builder made with a placeholder node before any was ready; each node written into its record.
    const creates = dockerCalls().filter(c => c[1] === 'create');
    expect(creates.map(c => [c.includes('--append'), c.includes('--use'), c.at(-1)])).toEqual([
      [false, false, 'tcp://127.0.0.1:1']
    ]);
    const nodes = JSON.parse(main.outputs['nodes']) as Record<string, string>[];
    for (const n of nodes) {
      expect(main.stdout).toContain(`Node ${n.name}: BuildKit v0.13.2 at ${n.endpoint}, ${n.platforms}`);
    }
    expect(nodes.map(n => n.platforms).sort()).toEqual(['linux/amd64', 'linux/amd64', 'linux/arm64']);
    expect(post.exitCode).toBe(0);
    expect(assignedBuilders(ids)).toEqual([]);
  });

  test('profile fallback to a builder whose host is given as tcp://, ready only after the delay', async () => {
    const {main, post} = await runJob(job({'profile-name': 'no-such-profile, delayed'}));
    expect(main.exitCode).toBe(0);
    // An unknown profile is skipped for the next one.
    expect(main.annotations.find(a => a.level === 'warning')?.message).toMatch(/no-such-profile/);
    const id = main.outputs['builder-ids'];
    const entry = emu.ledger().find(e => e.builderId === id);
    expect(entry?.readyAt).toBeDefined();
    // The details requests continued until the emulator made it ready: the last came after it (on a loaded
    // machine the first may already come after the delay, and a slow proof may ask once more).
    const details = emu.requests().filter(r => r.route === 'details' && r.builderId === id);
    expect(details.at(-1)?.at).toBeGreaterThanOrEqual(entry?.readyAt ?? Infinity);
    // At most 10 a second over the 1.5 s delay (the first 30 s of a wait), plus the one that found it ready.
    expect(details.length).toBeLessThanOrEqual(16);
    expect(post.exitCode).toBe(0);
    expect(assignedBuilders([id])).toEqual([]);
  });

  test('setup-buildx false: no docker call at all, outputs still set; user-set DOCKER_BUILD_* variables are left alone', async () => {
    const {main, post} = await runJob(
      job({'profile-name': 'single', 'setup-buildx': 'false'}, {DOCKER_BUILD_SUMMARY: 'true'})
    );
    expect(main.exitCode).toBe(0);
    expect(main.exportedEnv).toEqual({DOCKER_BUILD_RECORD_UPLOAD: 'false', DOCKER_BUILD_CHECKS_ANNOTATIONS: 'false'});
    expect(main.outputs['builder-ids']).not.toBe('');
    expect(dockerCalls()).toEqual([]);
    expect(post.exitCode).toBe(0);
    expect(assignedBuilders(main.outputs['builder-ids'].split(','))).toEqual([]);
  });
});

describe('configure against a service whose builder ids are numbers', () => {
  let numeric: Emulator;
  beforeAll(async () => {
    numeric = await Emulator.start({
      profiles: [{name: 'trio', architectures: ['amd64', 'arm64'], buildersPerAssignment: 3}],
      apiKeys: [{key: API_KEY, scopes: ['builders']}],
      builderIds: 'numeric'
    });
  });
  afterAll(async () => numeric?.close());

  test('ids that buildx refuses as node names (a leading digit) become valid nodes, in buildx’s own records', async () => {
    const j = job({'profile-name': 'trio', 'api-url': numeric.url});
    const main = await runStep({script: MAIN, inputs: j.inputs, env: j.env, workDir: j.workDir});
    expect(main.exitCode).toBe(0);
    const ids = main.outputs['builder-ids'].split(',');
    expect(ids.every(id => /^\d+$/.test(id))).toBe(true);
    const nodes = JSON.parse(main.outputs['nodes']) as Record<string, string>[];
    expect(nodes.map(n => n.name)).toEqual(ids.map(id => `node-${id}`));
    // The first node by `buildx create` (which refuses a name that starts with a digit), the others in its record.
    const record = JSON.parse(
      readFileSync(join(work, 'docker-config', 'buildx', 'instances', main.outputs['name']), 'utf8')
    ) as {
      Nodes: {Name: string}[];
    };
    expect(record.Nodes.map(n => n.Name).sort()).toEqual(ids.map(id => `node-${id}`).sort());
    const post = await runStep({script: POST, inputs: j.inputs, env: j.env, workDir: j.workDir, state: main.state});
    expect(post.exitCode).toBe(0);
    expect(numeric.ledger().filter(e => e.terminatedAt === undefined)).toEqual([]);
  });
});
