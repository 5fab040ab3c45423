// Runs the bundled build-push action (dist/), main then post, through the runner harness against the
// emulator over loopback HTTP and mutual TLS, with the recording fake docker on PATH.
import {afterAll, afterEach, beforeAll, describe, expect, test} from '@jest/globals';
import {existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {dirname, join, resolve} from 'node:path';
import {fileURLToPath} from 'node:url';
import {Emulator, runAction, runMainAndPost, type ActionRunResult} from '@remote-builder-actions/emulator';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const MAIN = join(root, 'dist/build-push/main/index.js');
const POST = join(root, 'dist/build-push/post/index.js');
const CONFIGURE_MAIN = join(root, 'dist/configure/main/index.js');
const CONFIGURE_POST = join(root, 'dist/configure/post/index.js');
const FAKE_DOCKER_BIN = join(root, 'packages/emulator/fake-docker');
const API_KEY = 'rb_test_key_5b8e2d7a4c';
const DIGEST = `sha256:${'0'.repeat(64)}`;
const IMAGE_ID = `sha256:${'1'.repeat(64)}`;
const RUN_URL = 'https://github.com/octo-org/octo-repo/actions/runs/1/attempts/1';

let emu: Emulator;
let work: string;

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
afterEach(() => {
  emu.clearFaults();
  if (work) rmSync(work, {recursive: true, force: true});
});

function job(inputs: Record<string, string>, env: Record<string, string> = {}) {
  work = mkdtempSync(join(tmpdir(), 'build-push-it-'));
  // The build context (the job's workspace): the fake docker reads its Dockerfile, as BuildKit does.
  mkdirSync(join(work, 'workspace'), {recursive: true});
  writeFileSync(join(work, 'workspace', 'Dockerfile'), 'FROM alpine:3.20\nWORKDIR /src\nCOPY . .\nRUN ./build.sh\n');
  return {
    main: MAIN,
    post: POST,
    workDir: work,
    inputs: {'api-url': emu.url, 'api-key': API_KEY, context: '.', ...inputs},
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

function buildCalls(): string[][] {
  return dockerCalls().filter(c => c[1] === 'build');
}

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

describe('build-push action (bundled) against the emulator', () => {
  test('builds on an assigned builder: docker argv, outputs from the iidfile and metadata file, summary (DOCKER_BUILD_NO_SUMMARY, removed in v7, ignored with a warning), teardown in main', async () => {
    const j = job(
      {'profile-name': 'single', tags: 'user/app:latest', push: 'true', platforms: 'linux/amd64'},
      {DOCKER_BUILD_NO_SUMMARY: 'true'}
    );
    const main = await runAction({script: MAIN, inputs: j.inputs, env: j.env, workDir: work});
    expect(main.stderr).toBe('');
    expect(main.exitCode).toBe(0);
    // Warned once, naming the replacement; the summary is still written (by post, below).
    expect(main.annotations.filter(a => a.level === 'warning').map(a => a.message)).toEqual([
      "DOCKER_BUILD_NO_SUMMARY is ignored: docker's actions v7 removed it; set DOCKER_BUILD_SUMMARY=false instead."
    ]);
    expect(main.outputs['imageid']).toBe(IMAGE_ID);
    expect(main.outputs['digest']).toBe(DIGEST);
    const metadata = JSON.parse(main.outputs['metadata'] ?? '') as Record<string, string>;
    expect(metadata['containerimage.digest']).toBe(DIGEST);
    expect(metadata['image.name']).toBe('user/app:latest');

    const {builderIds, builderName} = stateOf(main);
    expect(builderIds).toHaveLength(1);
    const calls = dockerCalls();
    expect(calls[0]).toEqual(['buildx', 'version']);
    // One create, right after the assignment, with a placeholder node; the ready builder's node took its place
    // in buildx's record, with its platform.
    const creates = calls.filter(c => c[1] === 'create');
    expect(creates.map(c => [c.includes('--use'), c.at(-1)])).toEqual([[false, 'tcp://127.0.0.1:1']]);
    expect(main.stdout).toMatch(/Set node \S+ of buildx builder "\S+" to tcp:\/\/127\.0\.0\.1:\d{2,}/);
    expect(main.stdout).toMatch(/Node \S+: BuildKit v0\.13\.2 at tcp:\/\/127\.0\.0\.1:\d+, linux\/amd64$/m);
    const build = buildCalls();
    expect(build).toHaveLength(1);
    const argv = build[0] as string[];
    const tmp = dirname(argv[argv.indexOf('--iidfile') + 1] as string);
    expect(tmp.startsWith(join(work, 'runner-temp'))).toBe(true);
    // docker/build-push-action v6 argv for these inputs, plus --builder at docker's place for it.
    expect(argv).toEqual([
      'buildx',
      'build',
      '--iidfile',
      join(tmp, 'iidfile.txt'),
      '--platform',
      'linux/amd64',
      '--attest',
      `type=provenance,mode=max,builder-id=${RUN_URL}`,
      '--tag',
      'user/app:latest',
      '--builder',
      builderName,
      '--metadata-file',
      join(tmp, 'metadata.json'),
      '--push',
      '.'
    ]);
    // The private folder (secrets, iidfile, metadata) is gone once main ends.
    expect(existsSync(tmp)).toBe(false);
    // One job-summary block per step, written by post.
    expect(main.summary).toBe('');
    // Billing stops when the build ends: main tears the builders down and removes the buildx builder.
    expect(live(builderIds)).toEqual([]);
    expect(emu.ledger().find(e => e.builderId === builderIds[0])?.reason).toBe('teardown');
    expect(dockerCalls().slice(-1)).toEqual([['buildx', 'rm', builderName]]);
    expect(main.stdout).toMatch(/Tore down .* after the build; billing stopped/);
    const post = await runAction({script: POST, inputs: j.inputs, env: j.env, workDir: work, state: main.state});
    expect(post.exitCode).toBe(0);
    expect(post.annotations.filter(a => a.level === 'warning')).toEqual([]);
    expect(post.stdout).toMatch(/already torn down by main/);
    expect(dockerCalls().filter(c => c[1] === 'rm')).toHaveLength(1);
    expect(post.summary).toContain('single');
    expect(post.summary).toContain(DIGEST);
    expect(post.summary).toContain('user/app:latest');
    expect(post.summary).toContain('amd64');
    expect(post.summary).toMatch(/setup .* · build and push /);
  });

  test('multi-arch, with secrets and the default Git context: one node per builder with its platform, build for both; no secret, token or key printed', async () => {
    const secretValue = 's3cr3t-build-value-81f2';
    const fileSecret = 'file-secret-content-7c1d';
    const token = 'ghs_buildpushtoken0123456789';
    const j = job(
      {
        'profile-name': 'multi',
        platforms: 'linux/amd64,linux/arm64',
        outputs: 'type=image,push=false',
        context: '',
        secrets: `MY_SECRET=${secretValue}\n"MULTI=line-one-aaaa\nline-two-bbbb"`,
        'secret-envs': 'ENV_SECRET=SOME_ENV',
        'secret-files': 'FILE_SECRET=./secret.txt',
        'github-token': token
      },
      {SOME_ENV: 'env-secret-value-3e9a'}
    );
    writeFileSync(join(work, 'workspace', 'secret.txt'), fileSecret);
    const main = await runAction({script: MAIN, inputs: j.inputs, env: j.env, workDir: work});
    expect(main.exitCode).toBe(0);
    const {builderIds, certDir} = stateOf(main);
    expect(builderIds).toHaveLength(2);
    // The client keys went with their builders, torn down as the build ended: the emulator says what it issued.
    expect(readdirSync(certDir)).toEqual([]);
    // One create (a placeholder node, before any builder was ready); both nodes in buildx's record, one per
    // builder with its platform.
    const creates = dockerCalls().filter(c => c[1] === 'create');
    expect(creates.map(c => c.at(-1))).toEqual(['tcp://127.0.0.1:1']);
    for (const arch of ['amd64', 'arm64']) {
      expect(main.stdout).toMatch(
        new RegExp(`^Node \\S+: BuildKit \\S+ at tcp://127\\.0\\.0\\.1:\\d+, linux/${arch}$`, 'm')
      );
    }
    const argv = buildCalls()[0] as string[];
    expect(argv.slice(argv.indexOf('--platform'), argv.indexOf('--platform') + 2)).toEqual([
      '--platform',
      'linux/amd64,linux/arm64'
    ]);
    // Default Git context and the token as GIT_AUTH_TOKEN.<host>, as docker does.
    expect(argv[argv.length - 1]).toBe(
      'https://github.com/octo-org/octo-repo.git#ffac537e6cbbf934b08745a378932722df287a53'
    );
    const secrets = argv.flatMap((a, i) => (a === '--secret' ? [argv[i + 1] as string] : []));
    expect(secrets.map(s => s.replace(/,src=.*$/, ''))).toEqual([
      'id=ENV_SECRET,env=SOME_ENV',
      'id=MY_SECRET',
      'id=MULTI',
      'id=FILE_SECRET',
      'id=GIT_AUTH_TOKEN.github.com'
    ]);
    // Only paths reach the argv, never values.
    expect(argv.join(' ')).not.toContain(secretValue);
    expect(main.masks).toEqual(expect.arrayContaining([API_KEY, secretValue, token, 'line-one-aaaa']));
    expect(live(builderIds)).toEqual([]);
    const post = await runAction({script: POST, inputs: j.inputs, env: j.env, workDir: work, state: main.state});
    expect(post.exitCode).toBe(0);
    expect(post.summary).toContain('arm64');
    const keyPem = emu.issuedClientKeys().join('\n');
    const leaks = [
      API_KEY,
      secretValue,
      fileSecret,
      token,
      'line-one-aaaa',
      'line-two-bbbb',
      ...keyPem.split('\n').filter(l => l.length >= 8 && !l.startsWith('-----'))
    ];
    for (const r of [main, post]) {
      const all = everything(r);
      for (const s of leaks) expect(all.includes(s)).toBe(false);
    }
  });

  test('builder input: builds on the builder made by the configure action; nothing assigned or torn down', async () => {
    const j = job({});
    const configured = await runAction({
      script: CONFIGURE_MAIN,
      workDir: work,
      env: j.env,
      inputs: {'api-url': emu.url, 'api-key': API_KEY, 'profile-name': 'single', use: 'false'}
    });
    expect(configured.exitCode).toBe(0);
    const shared = configured.outputs['name'] as string;
    const ledgerBefore = emu.ledger().length;
    const assignsBefore = emu.requests().filter(r => r.route === 'assign').length;

    const {main, post} = await runMainAndPost({
      ...j,
      inputs: {builder: shared, context: '.', tags: 'user/app:shared'}
    });
    expect(main.exitCode).toBe(0);
    expect(main.outputs['digest']).toBe(DIGEST);
    // Written empty at main's start (every key post reads is), never set: nothing was assigned.
    expect(main.state['builder']).toBe('');
    const argv = buildCalls()[0] as string[];
    expect(argv.slice(argv.indexOf('--builder'), argv.indexOf('--builder') + 2)).toEqual(['--builder', shared]);
    expect(dockerCalls().some(c => c[1] === 'inspect' && c.includes('--bootstrap') && c.includes(shared))).toBe(true);
    expect(post.exitCode).toBe(0);
    expect(post.stdout).toMatch(/nothing to tear down/);
    expect(emu.ledger().length).toBe(ledgerBefore);
    expect(emu.requests().filter(r => r.route === 'assign').length).toBe(assignsBefore);
    const sharedIds = configured.outputs['builder-ids']?.split(',') ?? [];
    expect(live(sharedIds)).toHaveLength(1);

    const configurePost = await runAction({
      script: CONFIGURE_POST,
      workDir: work,
      env: j.env,
      inputs: {'api-url': emu.url, 'api-key': API_KEY},
      state: configured.state
    });
    expect(configurePost.exitCode).toBe(0);
    expect(live(sharedIds)).toEqual([]);
  });

  test('platform guard: an architecture the profile lacks fails before building, builders torn down in main', async () => {
    const j = job({'profile-name': 'single', platforms: 'linux/amd64,linux/arm64'});
    const main = await runAction({script: MAIN, inputs: j.inputs, env: j.env, workDir: work});
    expect(main.exitCode).toBe(1);
    const error = errorOf(main);
    expect(error).toMatch(/arm64/);
    expect(error).toMatch(/enable arm64 on builder profile "single"/);
    expect(error).toMatch(/exec format error/);
    expect(buildCalls()).toEqual([]);
    const {builderIds} = stateOf(main);
    expect(builderIds).toHaveLength(1);
    expect(live(builderIds)).toEqual([]);
    const post = await runAction({script: POST, inputs: j.inputs, env: j.env, workDir: work, state: main.state});
    expect(post.exitCode).toBe(0);
    expect(post.stdout).toMatch(/already torn down by main/);
  });
});
