// End to end: the bundled bake action, main then post, through the runner harness, against an emulator whose
// builders proxy (mutual TLS → dockerd's /grpc hijack) to a real BuildKit. Needs scripts/e2e-up.sh.
// Issue 5, scenario 6: two targets pushed, `set` overrides, `metadata` checked against the registry.
import {afterAll, beforeAll, describe, expect, test} from '@jest/globals';
import {randomBytes} from 'node:crypto';
import {existsSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {type JobRunOpts, type ProfileConfig} from '../src/index.js';
import {buildxExport, expectSameRecord, recordRefs, uploadedRecord} from './build-record.js';
import {
  actionJob,
  allTornDown,
  bundleIncludes,
  printed,
  assignedIds,
  buildContext,
  certDirOf,
  loggedBuildxCommands,
  errorOf,
  mustSucceed,
  jobWorkspace,
  requireE2eEnv,
  runMain,
  runPost,
  stepReport,
  type E2eEmulator,
  type E2eEnv,
  type Workspace
} from './e2e-env.js';

const PROFILES: ProfileConfig[] = [{name: 'e2e-bake-amd64', architectures: ['amd64'], readyDelayMs: 300}];

let env: E2eEnv;
let emu: E2eEmulator;
const workspaces: Workspace[] = [];

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
    console.log(`bake e2e ledger (the whole file):\n${emu.ledgerText()}`);
    await emu.close();
  }
  for (const ws of workspaces) ws.cleanup();
});

function workspace(label: string): Workspace {
  const ws = env.workspace(label);
  workspaces.push(ws);
  return ws;
}

type TargetMetadata = Record<string, unknown>;

/**
 * The checkout in the job's workspace: docker-bake.hcl with targets "app" and "tool" (linux/amd64, build-arg
 * FLAVOR, a tag each) and their Dockerfiles (busybox only, no outside registry).
 */
function writeCheckout(job: JobRunOpts, run: string, appRepo: string, toolRepo: string): void {
  const dir = jobWorkspace(job);
  for (const target of ['app', 'tool']) {
    buildContext(env, dir, {
      dockerfile: `${target}.Dockerfile`,
      run: `echo ${target}-${run} > /target.txt`,
      extraLines: ['ARG FLAVOR', 'RUN echo "$FLAVOR" > /flavor.txt']
    });
  }
  writeFileSync(
    join(dir, 'docker-bake.hcl'),
    `group "default" {
  targets = ["app", "tool"]
}
target "_common" {
  context   = "."
  platforms = ["linux/amd64"]
  args = {
    FLAVOR = "from-the-bake-file"
  }
}
target "app" {
  inherits   = ["_common"]
  dockerfile = "app.Dockerfile"
  tags       = ["${env.registry.ref(appRepo, 'from-the-bake-file')}"]
}
target "tool" {
  inherits   = ["_common"]
  dockerfile = "tool.Dockerfile"
  tags       = ["${env.registry.ref(toolRepo, 'v1')}"]
}
`
  );
}

function bakeJob(ws: Workspace, name: string, inputs: Record<string, string>): JobRunOpts {
  return actionJob({
    action: 'bake',
    emulator: emu,
    workspace: ws,
    job: name,
    // source '.': the bake file of the checkout (the job's workspace), not this repository's Git context.
    inputs: {timeout: '120000', 'profile-name': 'e2e-bake-amd64', source: '.', ...inputs}
  });
}

describe('bake (bundled) on a real BuildKit over mutual TLS', () => {
  test('scenario 6: two targets pushed with set overrides; metadata matches both registry digests', async () => {
    const ws = workspace('s6');
    // A value no earlier run used: keeps BuildKit's cache from skipping the RUN steps.
    const run = randomBytes(6).toString('hex');
    const appRepo = env.registry.uniqueRepo('s6-app');
    const toolRepo = env.registry.uniqueRepo('s6-tool');
    const job = bakeJob(ws, 's6', {
      push: 'true',
      set: [
        // A tag and a build-arg per target, over the bake file's.
        `app.tags=${env.registry.ref(appRepo, 'v1')}`,
        `app.args.FLAVOR=app-${run}`,
        `tool.args.FLAVOR=tool-${run}`
      ].join('\n')
    });
    writeCheckout(job, run, appRepo, toolRepo);

    const main = mustSucceed('bake main', await runMain(job));
    const ids = assignedIds(main);
    expect(ids).toHaveLength(1);
    // The bake ran once, and the builders were torn down as soon as it ended.
    const commands = loggedBuildxCommands(main, 'bake');
    expect(commands).toHaveLength(1);
    expect(commands[0]).toContain(`--set tool.args.FLAVOR=tool-${run}`);
    expect(emu.reasons(ids)).toEqual(allTornDown(ids));

    // Both images are in the registry, with the overrides applied.
    const app = await env.registry.requireManifest(appRepo, 'v1');
    const tool = await env.registry.requireManifest(toolRepo, 'v1');
    expect(await env.registry.manifest(appRepo, 'from-the-bake-file')).toBeUndefined();
    expect(await env.registry.readFile(appRepo, 'v1', '/target.txt', 'linux/amd64')).toBe(`app-${run}\n`);
    expect(await env.registry.readFile(appRepo, 'v1', '/flavor.txt', 'linux/amd64')).toBe(`app-${run}\n`);
    expect(await env.registry.readFile(toolRepo, 'v1', '/target.txt', 'linux/amd64')).toBe(`tool-${run}\n`);
    expect(await env.registry.readFile(toolRepo, 'v1', '/flavor.txt', 'linux/amd64')).toBe(`tool-${run}\n`);
    expect((await env.registry.imageConfig(toolRepo, 'v1', 'linux/amd64')).architecture).toBe('amd64');
    console.log(
      `scenario 6: pushed ${env.registry.ref(appRepo, 'v1')} at ${app.digest} and ` +
        `${env.registry.ref(toolRepo, 'v1')} at ${tool.digest}; bake main took ${main.durationMs} ms`
    );

    // metadata: one entry per target, each naming what the registry holds.
    const metadata = JSON.parse(main.outputs['metadata'] ?? 'null') as Record<string, TargetMetadata>;
    expect(Object.keys(metadata).sort()).toEqual(['app', 'tool']);
    expect(metadata['app']?.['containerimage.digest']).toBe(app.digest);
    expect(metadata['app']?.['image.name']).toBe(env.registry.ref(appRepo, 'v1'));
    expect(metadata['tool']?.['containerimage.digest']).toBe(tool.digest);
    expect(metadata['tool']?.['image.name']).toBe(env.registry.ref(toolRepo, 'v1'));

    const post = mustSucceed('bake post', await runPost(job, main));
    // One job-summary block per step, written by post.
    expect(post.summary).toContain(app.digest);
    expect(post.summary).toContain(tool.digest);
    expect(post.annotations.filter(a => a.level === 'warning' || a.level === 'error')).toEqual([]);
    expect(emu.reasons(ids)).toEqual(allTornDown(ids));
    expect(emu.stillAssigned()).toEqual([]);
    expect(ws.buildxBuilders()).toEqual([]);
    expect(existsSync(certDirOf(main) ?? '/nonexistent')).toBe(false);
  });

  test('a target asking for arm64 on a profile without arm64 fails before baking; nothing stays assigned', async () => {
    const ws = workspace('s6-arm64');
    const run = randomBytes(6).toString('hex');
    const appRepo = env.registry.uniqueRepo('s6b-app');
    const toolRepo = env.registry.uniqueRepo('s6b-tool');
    const job = bakeJob(ws, 's6-arm64', {push: 'true', set: 'tool.platform=linux/amd64,linux/arm64'});
    writeCheckout(job, run, appRepo, toolRepo);
    const main = await runMain(job);
    const report = stepReport('bake main', main);
    expect({exit: main.exitCode, report}).toMatchObject({exit: 1});
    const error = errorOf(main);
    expect(error).toMatch(/target "tool" asks for arm64/);
    expect(error).not.toMatch(/target "app"/);
    expect(error).toMatch(/enable arm64 on builder profile "e2e-bake-amd64"/);
    expect(error).toMatch(/"tool\.platform=linux\/amd64"/);
    // No bake ran, nothing was pushed, and main tore the builder down.
    expect(loggedBuildxCommands(main, 'bake')).toEqual([]);
    expect(await env.registry.manifest(toolRepo, 'v1')).toBeUndefined();
    expect(await env.registry.manifest(appRepo, 'from-the-bake-file')).toBeUndefined();
    const ids = assignedIds(main);
    expect(ids).toHaveLength(1);
    expect(emu.reasons(ids)).toEqual(allTornDown(ids));
    const post = mustSucceed('bake post', await runPost(job, main));
    expect(post.annotations.filter(a => a.level === 'warning' || a.level === 'error')).toEqual([]);
    expect(emu.stillAssigned()).toEqual([]);
    expect(ws.buildxBuilders()).toEqual([]);
    console.log(`bake platform guard: main failed after ${main.durationMs} ms: ${error}`);
  });
});

describe('bake: the build record (issue 28 §1)', () => {
  test("buildx >= 0.23: every target's record in one file, exported from the real BuildKit before the teardown and uploaded after it; older buildx says why not", async () => {
    expect(bundleIncludes('bake', 'Exporting the build record')).toBe(true);
    const ws = workspace('rec');
    const run = randomBytes(6).toString('hex');
    // Built, not pushed: the record is the point.
    const job = {
      ...bakeJob(ws, 'rec', {set: '*.output=type=cacheonly'}),
      env: {...ws.dockerEnv(), ...emu.artifacts.runnerEnv()}
    };
    writeCheckout(job, run, env.registry.uniqueRepo('rec-app'), env.registry.uniqueRepo('rec-tool'));
    const main = mustSucceed('bake main (record)', await runMain(job));
    const ids = assignedIds(main);
    expect(emu.reasons(ids)).toEqual(allTornDown(ids));
    if (!env.buildxAtLeast('0.23.0')) {
      expect(printed(main)).toMatch(
        /No build record: Build summary requires Buildx >= 0\.23\.0 \(this step runs buildx 0\.\d+/
      );
      console.log(`bake build record: none with buildx ${env.state.buildxVersion}, as the log says`);
    } else {
      const up = uploadedRecord(emu, main);
      const refs = recordRefs(up);
      expect(refs).toHaveLength(2);
      expect(up.name).toBe(`octo-org~octo-repo~${(refs[0] ?? '').slice(0, 6).toUpperCase()}+1.dockerbuild`);
      const torn = emu.entries(ids).map(e => e.terminatedAt as number);
      expect(up.createdAt).toBeGreaterThanOrEqual(Math.max(...torn));
      // Read from BuildKit by our own client, and what buildx's own export of both records holds.
      expect(printed(main)).not.toContain('could not be read from BuildKit directly');
      expectSameRecord(up.record, await buildxExport(ws, refs, env.buildxAtLeast('0.24.0')));
      console.log(
        `bake build record: ${up.name}, ${up.sizeBytes} bytes, exported in ${up.exportMs} ms before the teardown`
      );
    }
    mustSucceed('bake post (record)', await runPost(job, main));
  });
});
