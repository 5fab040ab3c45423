// End to end: the bundled configure action, main then post, through the runner harness, against an emulator
// whose builders proxy (mutual TLS → dockerd's /grpc hijack) to a real BuildKit. Needs scripts/e2e-up.sh.
import {afterAll, beforeAll, describe, expect, test} from '@jest/globals';
import {existsSync} from 'node:fs';
import {join} from 'node:path';
import {runMainAndPost, type ProfileConfig} from '../src/index.js';
import {
  actionJob,
  assignedIds,
  certDirOf,
  mustSucceed,
  requireE2eEnv,
  runMain,
  runPost,
  stepReport,
  type E2eEmulator,
  type E2eEnv,
  type Workspace
} from './e2e-env.js';

const PROFILES: ProfileConfig[] = [
  // Two builders per assignment: one amd64 node and one arm64 node in one buildx builder.
  {name: 'e2e-multi', architectures: ['amd64', 'arm64'], buildersPerAssignment: 2, readyDelayMs: 1000},
  {name: 'e2e-shared', architectures: ['amd64'], readyDelayMs: 500},
  {name: 'e2e-slow', architectures: ['amd64'], readyDelayMs: 120_000},
  {name: 'e2e-quick', architectures: ['amd64'], readyDelayMs: 200}
];

let env: E2eEnv;
let emu: E2eEmulator;
const workspaces: Workspace[] = [];

beforeAll(async () => {
  env = await requireE2eEnv();
  // Ids of digits: buildx refuses a node name that starts with one, so every scenario proves our node names.
  emu = await env.startEmulator({profiles: PROFILES, builderIds: 'numeric'});
  console.log(
    `e2e environment: ${env.state.mode} dockerd ${env.state.dockerVersion} on ${env.state.dockerSocket}, ` +
      `buildx ${env.state.buildxVersion}, registry ${env.state.registry}; emulator at ${emu.url}`
  );
});

afterAll(async () => {
  if (emu) {
    console.log(`Ledger of the whole suite:\n${emu.ledgerText()}`);
    await emu.close();
  }
  for (const ws of workspaces) ws.cleanup();
});

function workspace(label: string): Workspace {
  const ws = env.workspace(label);
  workspaces.push(ws);
  return ws;
}

function configureJob(ws: Workspace, job: string, inputs: Record<string, string>) {
  return actionJob({action: 'configure', emulator: emu, workspace: ws, job, inputs: {timeout: '120000', ...inputs}});
}

/** The debug line of a buildx command, run as `docker buildx …` or as the plugin itself (`…/docker-buildx …`). */
const BUILDX_RUN = /NodeExec\.run: (?:docker buildx|\S+\/docker-buildx)/;

function expectTornDown(ids: string[]): void {
  expect(ids.length).toBeGreaterThan(0);
  const entries = emu.entries(ids);
  expect(entries.map(e => e.builderId).sort()).toEqual([...ids].sort());
  expect(entries.map(e => ({id: e.builderId, reason: e.reason}))).toEqual(ids.map(id => ({id, reason: 'teardown'})));
}

describe('configure (bundled) on a real BuildKit over mutual TLS', () => {
  test('scenario 1: configure, a multi-platform build pushed by hand, post tears every builder down', async () => {
    const ws = workspace('s1');
    const job = configureJob(ws, 's1', {'profile-name': 'e2e-multi'});
    const main = mustSucceed('configure main', await runMain(job));
    const name = main.outputs['name'];
    const ids = main.outputs['builder-ids'].split(',');
    expect(ids).toHaveLength(2);
    expect(ids.every(id => /^\d+$/.test(id))).toBe(true);
    expect(main.outputs['platforms']).toBe('linux/amd64,linux/arm64');
    expect(ws.buildxBuilders()).toEqual([name]);
    expect(emu.stillAssigned(ids).sort()).toEqual([...ids].sort());

    // The second node joined by a direct write of buildx's record (no `create --append`), and the real
    // BuildKit told each node's version over gRPC (no bootstrap): this buildx reads that record as its own.
    expect(main.stdout).toMatch(/Added node \S+ to buildx builder/);
    expect(main.stdout).not.toMatch(new RegExp(`${BUILDX_RUN.source} create .*--append`, 'm'));
    expect(main.stdout).not.toMatch(new RegExp(`${BUILDX_RUN.source} inspect --bootstrap`, 'm'));
    // The first node was made by the buildx plugin itself (one process), not through `docker buildx`.
    expect(main.stdout).toMatch(/NodeExec\.run: \S+\/docker-buildx create --name /);
    expect(main.stdout).not.toMatch(/NodeExec\.run: docker buildx /);
    expect(main.stdout.match(/^Node \S+: BuildKit v\d+\.\d+\S* at tcp:/gm)).toHaveLength(2);
    // That Control/Info call's connection was readiness's proof for each builder: no separate TLS probe.
    expect(
      main.stdout.match(/waitForBuilderReady: \S+: ready \(its BuildKit answered over mutual TLS\)$/gm)
    ).toHaveLength(2);

    // Both nodes are up: the remote driver reached BuildKit through each builder's mTLS endpoint.
    const inspect = await ws.dockerOk(['buildx', 'inspect', name]);
    expect(inspect.stdout.match(/^Status:\s+running$/gm)).toHaveLength(2);
    // Named after the ids, with the prefix buildx needs when an id starts with a digit.
    expect(inspect.stdout.match(/^Name:\s+node-\d+$/gm)).toHaveLength(2);

    const repo = env.registry.uniqueRepo('s1');
    const ref = env.registry.ref(repo, 'v1');
    const ctx = ws.context('s1');
    const metadataFile = join(ws.dir, 's1-metadata.json');
    const build = await ws.docker([
      'buildx',
      'build',
      '--builder',
      name,
      '--platform',
      'linux/amd64,linux/arm64',
      '--push',
      '--tag',
      ref,
      '--metadata-file',
      metadataFile,
      '--progress',
      'plain',
      ctx.dir
    ]);
    expect({code: build.code, output: build.output}).toEqual({
      code: 0,
      output: expect.stringMatching(/pushing manifest for/)
    });
    await expectPushedBothPlatforms(repo, ref, build.durationMs);

    const post = mustSucceed('configure post', await runPost(job, main));
    expect(post.annotations.filter(a => a.level === 'warning' || a.level === 'error')).toEqual([]);
    expect(ws.buildxBuilders()).toEqual([]);
    expect(existsSync(certDirOf(main) ?? '/nonexistent')).toBe(false);
    expect(emu.stillAssigned(ids)).toEqual([]);
    expectTornDown(ids);
    console.log(`scenario 1 ledger:\n${emu.ledgerText(ids)}`);
  });

  /** The index pushed by scenario 1 has both platforms, and each RUN step ran on its own platform. */
  async function expectPushedBothPlatforms(repo: string, ref: string, durationMs: number): Promise<void> {
    const manifest = await env.registry.requireManifest(repo, 'v1');
    console.log(`scenario 1: pushed ${ref} at ${manifest.digest} in ${durationMs} ms`);
    expect(manifest.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(manifest.mediaType).toMatch(/index|manifest\.list/);
    expect(await env.registry.platforms(repo, 'v1')).toEqual(['linux/amd64', 'linux/arm64']);
    // The RUN step really ran on each platform (arm64 under QEMU).
    expect(await env.registry.readFile(repo, 'v1', '/built.txt', 'linux/amd64')).toBe('built\n');
    expect(await env.registry.readFile(repo, 'v1', '/arch.txt', 'linux/amd64')).toBe('x86_64\n');
    expect(await env.registry.readFile(repo, 'v1', '/arch.txt', 'linux/arm64')).toBe('aarch64\n');
    expect((await env.registry.imageConfig(repo, 'v1', 'linux/arm64')).architecture).toBe('arm64');
  }

  test('scenario 7: two jobs in parallel on one profile; each post tears down only its own builders', async () => {
    // One DOCKER_CONFIG for both jobs (two runners on one machine): the stricter case for `buildx rm`.
    const ws = workspace('s7');
    const jobA = configureJob(ws, 's7-a', {'profile-name': 'e2e-shared'});
    const jobB = configureJob(ws, 's7-b', {'profile-name': 'e2e-shared'});
    const [mainA, mainB] = await Promise.all([runMain(jobA), runMain(jobB)]);
    mustSucceed('job A configure main', mainA);
    mustSucceed('job B configure main', mainB);
    const [nameA, nameB] = [mainA.outputs['name'], mainB.outputs['name']];
    const [idsA, idsB] = [mainA.outputs['builder-ids'].split(','), mainB.outputs['builder-ids'].split(',')];
    expect(nameA).not.toBe(nameB);
    expect(idsA.filter(id => idsB.includes(id))).toEqual([]);
    expect(ws.buildxBuilders()).toEqual([nameA, nameB].sort());

    const repoA = env.registry.uniqueRepo('s7-a');
    const repoB = env.registry.uniqueRepo('s7-b');
    const build = (builder: string, repo: string, tag: string, run: string) =>
      ws.dockerOk([
        'buildx',
        'build',
        '--builder',
        builder,
        '--platform',
        'linux/amd64',
        '--push',
        '--tag',
        env.registry.ref(repo, tag),
        ws.context(`${repo.replace(/\W/g, '-')}-${tag}`, {run}).dir
      ]);
    await Promise.all([
      build(nameA, repoA, 'v1', 'echo job-a > /job.txt'),
      build(nameB, repoB, 'v1', 'echo job-b > /job.txt')
    ]);
    expect(await env.registry.readFile(repoA, 'v1', '/job.txt')).toBe('job-a\n');
    expect(await env.registry.readFile(repoB, 'v1', '/job.txt')).toBe('job-b\n');

    // Job A ends first: only its builders go.
    mustSucceed('job A configure post', await runPost(jobA, mainA));
    expectTornDown(idsA);
    expect(emu.stillAssigned(idsB).sort()).toEqual([...idsB].sort());
    expect(ws.buildxBuilders()).toEqual([nameB]);

    // Job B's builder still builds after A's teardown.
    await build(nameB, repoB, 'v2', 'echo job-b-again > /job.txt');
    const manifestB = await env.registry.requireManifest(repoB, 'v2');
    console.log(`scenario 7: job B pushed ${env.registry.ref(repoB, 'v2')} at ${manifestB.digest} after job A's post`);
    expect(await env.registry.readFile(repoB, 'v2', '/job.txt')).toBe('job-b-again\n');

    mustSucceed('job B configure post', await runPost(jobB, mainB));
    expectTornDown(idsB);
    expect(ws.buildxBuilders()).toEqual([]);
    console.log(`scenario 7 ledger:\n${emu.ledgerText([...idsA, ...idsB])}`);
  });

  describe('scenario 8: SIGINT to main, then post: nothing stays assigned', () => {
    test('during readiness', async () => {
      const ws = workspace('s8a');
      const {main, post} = await runMainAndPost({
        ...configureJob(ws, 's8a', {'profile-name': 'e2e-slow'}),
        signals: [{signal: 'SIGINT', whenOutputMatches: /Assigned 1 builder/, afterMs: 300}],
        cancelLikeRunner: true
      });
      const report = `${stepReport('main', main)}\n${stepReport('post', post)}`;
      expect({exit: main.exitCode, report}).toMatchObject({exit: 1});
      expect(main.signalsSent.map(s => s.signal)).toEqual(['SIGINT']);
      expect(main.annotations.find(a => a.level === 'error')?.message).toMatch(/Cancelled/);
      const ids = assignedIds(main);
      expect(ids).toHaveLength(1);
      expect(emu.entries(ids)[0]?.readyAt).toBeUndefined();
      expect({exit: post.exitCode, report}).toMatchObject({exit: 0});
      expect(emu.stillAssigned(ids)).toEqual([]);
      expectTornDown(ids);
      expect(ws.buildxBuilders()).toEqual([]);
      expect(existsSync(certDirOf(main) ?? '/nonexistent')).toBe(false);
      console.log(
        `scenario 8 (readiness): SIGINT at ${main.signalsSent[0]?.atMs} ms, main exited 1 after ${main.durationMs} ms\n` +
          emu.ledgerText(ids)
      );
    });

    // The node is created while readiness still checks the builder's TLS, and the real BuildKit tells its
    // version (Control/Info), so no bootstrap runs: the signal comes while `buildx create` runs.
    test('during buildx create against the real BuildKit', async () => {
      const ws = workspace('s8b');
      const {main, post} = await runMainAndPost({
        ...configureJob(ws, 's8b', {'profile-name': 'e2e-quick'}),
        // NodeExec logs each command as a debug line just before it starts.
        signals: [{signal: 'SIGINT', whenOutputMatches: new RegExp(`${BUILDX_RUN.source} create`)}],
        cancelLikeRunner: true
      });
      const report = `${stepReport('main', main)}\n${stepReport('post', post)}`;
      expect({exit: main.exitCode, report}).toMatchObject({exit: 1});
      const log = main.stdout;
      const createAt = log.search(new RegExp(`${BUILDX_RUN.source} create`));
      const signalAt = log.indexOf('Received SIGINT');
      expect(createAt).toBeGreaterThan(-1);
      expect(signalAt).toBeGreaterThan(createAt);
      // The phase the message names is the one the log shows the step was in when the signal came.
      const readyBefore = log.lastIndexOf('All builders ready', signalAt) > -1;
      expect(main.annotations.find(a => a.level === 'error')?.message).toMatch(
        readyBefore
          ? /Cancelled by SIGINT while setting up the buildx builder/
          : /Cancelled by SIGINT while waiting for builders to be ready/
      );
      const ids = assignedIds(main);
      expect(ids).toHaveLength(1);
      expect({exit: post.exitCode, report}).toMatchObject({exit: 0});
      expect(emu.stillAssigned(ids)).toEqual([]);
      expectTornDown(ids);
      expect(ws.buildxBuilders()).toEqual([]);
      expect(existsSync(certDirOf(main) ?? '/nonexistent')).toBe(false);
      console.log(
        `scenario 8 (buildx create, ${readyBefore ? 'after' : 'before'} ready): SIGINT at ${main.signalsSent[0]?.atMs} ms, main exited 1 after ${main.durationMs} ms; ` +
          `post: ${post.stdout.trim().split('\n').pop()}`
      );
    });
  });
});
