// End to end: the bundled build-push action, main then post, through the runner harness, against an emulator
// whose builders proxy (mutual TLS → dockerd's /grpc hijack) to a real BuildKit. Needs scripts/e2e-up.sh.
// Issue 5, scenarios 2 to 5: push with labels, build-args and a secret; multi-platform on two nodes; load and
// run; an architecture the profile lacks.
import {afterAll, beforeAll, describe, expect, test} from '@jest/globals';
import {createHash, randomBytes} from 'node:crypto';
import {basename} from 'node:path';
import {type ActionRunResult, type JobRunOpts, type ProfileConfig} from '../src/index.js';
import {buildxExport, expectSameRecord, recordRefs, uploadedRecord} from './build-record.js';
import {
  actionJob,
  allTornDown,
  bundleIncludes,
  assignedIds,
  errorOf,
  loggedBuildxCommands,
  mustSucceed,
  printed,
  requireE2eEnv,
  runMain,
  runPost,
  stepReport,
  type E2eEmulator,
  type E2eEnv,
  type Workspace
} from './e2e-env.js';

const PROFILES: ProfileConfig[] = [
  {name: 'e2e-bp-amd64', architectures: ['amd64'], readyDelayMs: 300},
  // Two builders per assignment: one amd64 node and one arm64 node in one buildx builder.
  {name: 'e2e-bp-multi', architectures: ['amd64', 'arm64'], buildersPerAssignment: 2, readyDelayMs: 500}
];

let env: E2eEnv;
let emu: E2eEmulator;
const workspaces: Workspace[] = [];
/** Images `load` put into dockerd, removed at the end. */
const loadedImages: string[] = [];

beforeAll(async () => {
  env = await requireE2eEnv();
  emu = await env.startEmulator({profiles: PROFILES});
  console.log(
    `e2e environment: ${env.state.mode} dockerd ${env.state.dockerVersion} on ${env.state.dockerSocket}, ` +
      `buildx ${env.state.buildxVersion}, registry ${env.state.registry}; emulator at ${emu.url}`
  );
});

afterAll(async () => {
  if (emu) {
    console.log(`build-push e2e ledger (the whole file):\n${emu.ledgerText()}`);
    await emu.close();
  }
  if (workspaces[0]) {
    for (const image of loadedImages) await workspaces[0].docker(['image', 'rm', '--force', image]);
  }
  for (const ws of workspaces) ws.cleanup();
});

function workspace(label: string): Workspace {
  const ws = env.workspace(label);
  workspaces.push(ws);
  return ws;
}

/** A value no earlier run used: keeps BuildKit's cache from skipping the RUN steps. */
function nonce(): string {
  return randomBytes(6).toString('hex');
}

function buildPushJob(ws: Workspace, job: string, inputs: Record<string, string>): JobRunOpts {
  return actionJob({
    action: 'build-push',
    emulator: emu,
    workspace: ws,
    job,
    inputs: {timeout: '120000', ...inputs}
  });
}

/** Main, then post; both must succeed. Checks what every successful job must leave behind. */
async function runJob(ws: Workspace, job: JobRunOpts): Promise<{main: ActionRunResult; post: ActionRunResult}> {
  const main = mustSucceed('build-push main', await runMain(job));
  const ids = assignedIds(main);
  // Billing stops when the build ends: main tears down, post finds nothing left.
  expect(emu.reasons(ids)).toEqual(allTornDown(ids));
  const post = mustSucceed('build-push post', await runPost(job, main));
  expect(post.annotations.filter(a => a.level === 'warning' || a.level === 'error')).toEqual([]);
  expectNothingLeft(ws, ids);
  return {main, post};
}

function expectNothingLeft(ws: Workspace, ids: string[]): void {
  expect(ids.length).toBeGreaterThan(0);
  expect(emu.reasons(ids)).toEqual(allTornDown(ids));
  expect(emu.stillAssigned()).toEqual([]);
  expect(ws.buildxBuilders()).toEqual([]);
}

function metadataOf(main: ActionRunResult): Record<string, unknown> {
  return JSON.parse(main.outputs['metadata'] ?? 'null') as Record<string, unknown>;
}

describe('build-push (bundled) on a real BuildKit over mutual TLS', () => {
  test('scenario 2: push with tags, labels, build-args and a secret; outputs match the registry; the secret is in no blob', async () => {
    const ws = workspace('s2');
    const run = nonce();
    const secret = `e2e-secret-${randomBytes(12).toString('hex')}`;
    const greeting = `hello-${run}`;
    const ctx = ws.context('s2', {
      extraLines: [
        'ARG GREETING',
        'RUN echo "$GREETING" > /greeting.txt',
        // The secret is readable during the step; only its hash and length end up in the image.
        `RUN --mount=type=secret,id=token test -s /run/secrets/token && sha256sum /run/secrets/token | cut -d' ' -f1 > /token.sha256 && wc -c < /run/secrets/token | tr -d ' ' > /token.len`
      ]
    });
    const repo = env.registry.uniqueRepo('s2');
    const ref = env.registry.ref(repo, 'v1');
    const job = buildPushJob(ws, 's2', {
      'profile-name': 'e2e-bp-amd64',
      context: ctx.dir,
      push: 'true',
      tags: `${ref}\n${env.registry.ref(repo, 'latest')}`,
      labels: `org.opencontainers.image.title=rba-e2e\ne2e.run=${run}`,
      'build-args': `GREETING=${greeting}`,
      secrets: `token=${secret}`
    });
    const {main, post} = await runJob(ws, job);
    const ids = assignedIds(main);
    expect(ids).toHaveLength(1);
    const commands = loggedBuildxCommands(main, 'build');
    expect(commands).toHaveLength(1);
    // Only the secret file's path reaches the command line.
    expect(commands[0]).toMatch(/--secret id=token,src=\S+/);
    expect(printed(main)).not.toContain(secret);

    const manifest = await env.registry.requireManifest(repo, 'v1');
    expect(manifest.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect((await env.registry.requireManifest(repo, 'latest')).digest).toBe(manifest.digest);
    console.log(
      `scenario 2: pushed ${ref} at ${manifest.digest} (${manifest.mediaType}) in ${main.durationMs} ms (main)`
    );

    // Outputs: digest and metadata name what the registry holds.
    expect(main.outputs['digest']).toBe(manifest.digest);
    const metadata = metadataOf(main);
    expect(metadata['containerimage.digest']).toBe(manifest.digest);
    expect(metadata['containerimage.descriptor']).toEqual(
      expect.objectContaining({digest: manifest.digest, mediaType: manifest.mediaType})
    );
    // imageid is what buildx writes to --iidfile: the config digest when the exporter reports one, else the
    // pushed digest (here an index: buildx adds its default provenance attestation).
    expect(main.outputs['imageid']).toBe(metadata['containerimage.config.digest'] ?? manifest.digest);
    expect(String(metadata['image.name']).split(',').sort()).toEqual([ref, env.registry.ref(repo, 'latest')].sort());
    // One job-summary block per step, written by post.
    expect(post.summary).toContain(manifest.digest);

    // Label and build-arg in the image config; the RUN steps really ran with them.
    const config = await env.registry.imageConfig(repo, 'v1', 'linux/amd64');
    expect(config.architecture).toBe('amd64');
    expect(config.config?.Labels).toEqual(
      expect.objectContaining({'org.opencontainers.image.title': 'rba-e2e', 'e2e.run': run})
    );
    expect(config.history?.some(h => h.created_by?.includes(`GREETING=${greeting}`))).toBe(true);
    expect(await env.registry.readFile(repo, 'v1', '/greeting.txt', 'linux/amd64')).toBe(`${greeting}\n`);
    // The secret was mounted with its value ...
    const sha = createHash('sha256').update(secret).digest('hex');
    expect(await env.registry.readFile(repo, 'v1', '/token.sha256', 'linux/amd64')).toBe(`${sha}\n`);
    expect(await env.registry.readFile(repo, 'v1', '/token.len', 'linux/amd64')).toBe(`${secret.length}\n`);
    // ... and is in no layer, config, manifest or attestation.
    const blobs = await env.registry.reachableBlobs(repo, 'v1');
    expect(blobs.filter(b => b.what.startsWith('layer')).length).toBeGreaterThanOrEqual(3);
    // (The scan reads uncompressed layers: the build-arg's value, written by a RUN step, is found.)
    expect(blobs.some(b => b.what.startsWith('layer') && b.data.includes(greeting))).toBe(true);
    expect(blobs.filter(b => b.data.includes(secret)).map(b => b.what)).toEqual([]);
    console.log(
      `scenario 2: registry digest ${manifest.digest}, imageid ${main.outputs['imageid']}; ${commands[0]?.replace(/\/\S*\/(runner-temp|contexts)\//g, '…/$1/')}`
    );
  });

  test('scenario 3: linux/amd64,linux/arm64 on a two-node builder; the pushed index has both, arm64 RUN under QEMU', async () => {
    const ws = workspace('s3');
    const run = nonce();
    const ctx = ws.context('s3', {run: `echo built-${run} > /built.txt && uname -m > /arch.txt`});
    const repo = env.registry.uniqueRepo('s3');
    const ref = env.registry.ref(repo, 'v1');
    const job = {
      ...buildPushJob(ws, 's3', {
        'profile-name': 'e2e-bp-multi',
        context: ctx.dir,
        platforms: 'linux/amd64,linux/arm64',
        push: 'true',
        tags: ref
      }),
      env: {...ws.dockerEnv(), ...emu.artifacts.runnerEnv()}
    };
    const {main, post} = await runJob(ws, job);
    const ids = assignedIds(main);
    expect(ids).toHaveLength(2);
    expect(
      emu
        .entries(ids)
        .map(e => e.arch)
        .sort()
    ).toEqual(['amd64', 'arm64']);

    const manifest = await env.registry.requireManifest(repo, 'v1');
    expect(manifest.mediaType).toMatch(/index|manifest\.list/);
    expect(await env.registry.platforms(repo, 'v1')).toEqual(['linux/amd64', 'linux/arm64']);
    expect(main.outputs['digest']).toBe(manifest.digest);
    expect(metadataOf(main)['containerimage.digest']).toBe(manifest.digest);
    expect(await env.registry.readFile(repo, 'v1', '/built.txt', 'linux/arm64')).toBe(`built-${run}\n`);
    expect(await env.registry.readFile(repo, 'v1', '/arch.txt', 'linux/amd64')).toBe('x86_64\n');
    expect(await env.registry.readFile(repo, 'v1', '/arch.txt', 'linux/arm64')).toBe('aarch64\n');
    expect((await env.registry.imageConfig(repo, 'v1', 'linux/arm64')).architecture).toBe('arm64');
    expect(post.summary).toContain('arm64');
    if (env.buildxAtLeast('0.23.0')) {
      // The build record holds each node's record of the one build (docker's toolkit: the first node's only).
      const records = uploadedRecord(emu, main).record.records;
      expect(records.map(r => r['DefaultPlatform']).sort()).toEqual(['linux/amd64', 'linux/arm64']);
      expect(new Set(records.map(r => r['Ref'])).size).toBe(1);
    }
    console.log(`scenario 3: pushed ${ref} (index of linux/amd64, linux/arm64) at ${manifest.digest}`);
  });

  test('scenario 4: load: true puts the image into dockerd; docker run prints what the build wrote', async () => {
    const ws = workspace('s4');
    const run = nonce();
    const ctx = ws.context('s4', {run: `echo loaded-${run} > /loaded.txt`});
    const tag = `rba-e2e/load-${run}:v1`;
    loadedImages.push(tag);
    const job = buildPushJob(ws, 's4', {
      'profile-name': 'e2e-bp-amd64',
      context: ctx.dir,
      load: 'true',
      tags: tag
    });
    const {main} = await runJob(ws, job);
    const out = await ws.dockerOk(['run', '--rm', tag, '/busybox', 'cat', '/loaded.txt']);
    expect(out.stdout).toBe(`loaded-${run}\n`);
    // With the containerd image store dockerd names the image by its manifest digest, the metadata's
    // containerimage.digest. imageid (buildx's --iidfile) is the config digest up to buildx 0.23, the
    // manifest digest from 0.24 on (docker/buildx#3136, which also drops containerimage.config.digest).
    const metadata = metadataOf(main);
    const imageId = main.outputs['imageid'] ?? '';
    expect(imageId).toMatch(/^sha256:[0-9a-f]{64}$/);
    if (env.buildxAtLeast('0.24.0')) {
      expect({imageId, config: metadata['containerimage.config.digest']}).toEqual({
        imageId: metadata['containerimage.digest'],
        config: undefined
      });
    } else {
      expect(imageId).toBe(metadata['containerimage.config.digest']);
    }
    expect(main.outputs['digest']).toBe(metadata['containerimage.digest']);
    const inspect = await ws.dockerOk(['image', 'inspect', '--format', '{{.Id}} {{.Architecture}}', tag]);
    expect(inspect.stdout.trim()).toBe(`${String(metadata['containerimage.digest'])} amd64`);
    console.log(
      `scenario 4: loaded ${tag} (docker image id ${main.outputs['digest']}, config ${imageId}); docker run printed ${JSON.stringify(out.stdout)}`
    );
  });

  test('scenario 5: arm64 on a profile without arm64 fails before building; nothing stays assigned', async () => {
    const ws = workspace('s5');
    const ctx = ws.context('s5');
    const repo = env.registry.uniqueRepo('s5');
    const job = buildPushJob(ws, 's5', {
      'profile-name': 'e2e-bp-amd64',
      context: ctx.dir,
      platforms: 'linux/arm64',
      push: 'true',
      tags: env.registry.ref(repo, 'v1')
    });
    const main = await runMain(job);
    const report = stepReport('build-push main', main);
    expect({exit: main.exitCode, report}).toMatchObject({exit: 1});
    const error = errorOf(main);
    expect(error).toMatch(/asks for arm64/);
    expect(error).toMatch(/enable arm64 on builder profile "e2e-bp-amd64"/);
    expect(error).toMatch(/exec format error/);
    // No build ran: no build command, nothing pushed.
    expect(loggedBuildxCommands(main, 'build')).toEqual([]);
    expect(await env.registry.manifest(repo, 'v1')).toBeUndefined();
    // The builder was assigned, and torn down by main already.
    const ids = assignedIds(main);
    expect(ids).toHaveLength(1);
    expect(emu.reasons(ids)).toEqual(allTornDown(ids));
    const post = mustSucceed('build-push post', await runPost(job, main));
    expect(post.annotations.filter(a => a.level === 'warning' || a.level === 'error')).toEqual([]);
    expectNothingLeft(ws, ids);
    console.log(`scenario 5: main failed after ${main.durationMs} ms: ${error}`);
  });
});

describe('build-push: the build record (issue 28 §1)', () => {
  test("buildx >= 0.23: the record of a successful and of a failed build, read from the real BuildKit before the teardown (as buildx's export has it) and uploaded after it; older buildx says why not", async () => {
    expect(bundleIncludes('build-push', 'Exporting the build record')).toBe(true);
    const ws = workspace('rec');
    const artifactEnv = emu.artifacts.runnerEnv();
    const ok = ws.context('rec-ok', {run: `echo ${nonce()} > /built.txt`});
    const bad = ws.context('rec-bad', {run: `echo ${nonce()} && exit 3`});
    const job = (name: string, dir: string) => ({
      ...buildPushJob(ws, name, {'profile-name': 'e2e-bp-amd64', context: dir}),
      env: {...ws.dockerEnv(), ...artifactEnv}
    });
    const okJob = job('rec-ok', ok.dir);
    const main = mustSucceed('build-push main (record)', await runMain(okJob));
    const ids = assignedIds(main);
    expect(emu.reasons(ids)).toEqual(allTornDown(ids));
    const badJob = job('rec-bad', bad.dir);
    const failed = await runMain(badJob);
    expect(failed.exitCode).not.toBe(0);
    const failedIds = assignedIds(failed);
    expect(emu.reasons(failedIds)).toEqual(allTornDown(failedIds));

    if (!env.buildxAtLeast('0.23.0')) {
      for (const r of [main, failed]) {
        expect(printed(r)).toMatch(
          /No build record: Build summary requires Buildx >= 0\.23\.0 \(this step runs buildx 0\.\d+/
        );
      }
      expect(emu.artifacts.artifacts()).toEqual([]);
      console.log(`build record: none with buildx ${env.state.buildxVersion}, as the log says`);
      return;
    }
    for (const [r, outcome, j] of [
      [main, 'success', okJob],
      [failed, 'failure', badJob]
    ] as const) {
      const up = uploadedRecord(emu, r);
      const [ref] = recordRefs(up);
      expect(up.name).toBe(`octo-org~octo-repo~${(ref ?? '').slice(0, 6).toUpperCase()}.dockerbuild`);
      expect(up.record.files.has('oci-layout')).toBe(true);
      // The record is BuildKit's: the build's ref, and for the failed build its error.
      expect(up.record.records).toHaveLength(1);
      if (outcome === 'failure') expect(JSON.stringify(up.record.records[0])).toContain('exit code: 3');
      // Read from BuildKit by our own client (no buildx process held the builder), and what buildx's own
      // export of the same record holds.
      expect(printed(r)).not.toContain('could not be read from BuildKit directly');
      expectSameRecord(up.record, await buildxExport(ws, [ref ?? ''], env.buildxAtLeast('0.24.0')));
      // Uploaded after the teardown: no builder was billed for the upload.
      const torn = emu.entries(assignedIds(r)).map(e => e.terminatedAt as number);
      expect(up.createdAt).toBeGreaterThanOrEqual(Math.max(...torn));
      console.log(
        `build record (${outcome}): ${up.name}, ${up.sizeBytes} bytes, exported in ${up.exportMs} ms before the teardown`
      );
      // docker's table, its facts read from the real record after the teardown (no `history inspect`): the
      // build's ID, its name (the context folder, as buildx names it), its status and a measured duration.
      const post = await runPost(j, r);
      const id = (ref ?? '').slice(0, 6).toUpperCase();
      const row = post.summary.split('\n').find(l => l.includes(`\`${id}\``)) ?? '';
      const [status, error] = outcome === 'success' ? ['completed', ''] : ['failed', 'exit code: 3'];
      expect(row).toMatch(
        new RegExp(`\\*\\*${basename(outcome === 'success' ? ok.dir : bad.dir)}\\*\\*.*${status}.*\\| \\d`)
      );
      expect(post.summary).toContain(error);
    }
  });
});
