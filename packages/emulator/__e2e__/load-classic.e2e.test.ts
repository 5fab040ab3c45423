// End to end: `load: true` into a client engine on the CLASSIC image store (overlay2, no containerd-snapshotter),
// as GitHub's ubuntu-latest has. The build runs on the remote builder (the emulator's endpoint, forwarding to
// the containerd-store dockerd); the step's DOCKER_HOST points at the second, classic-store dockerd that
// scripts/e2e-up.sh starts, so `--load` loads there. Issue 19 §3.
import {afterAll, beforeAll, describe, expect, test} from '@jest/globals';
import {randomBytes} from 'node:crypto';
import {type JobRunOpts, type ProfileConfig} from '../src/index.js';
import {
  actionJob,
  allTornDown,
  assignedIds,
  bundleIncludes,
  errorOf,
  loggedBuildxCommands,
  mustSucceed,
  requireE2eEnv,
  runMain,
  runPost,
  type E2eEmulator,
  type E2eEnv,
  type Workspace
} from './e2e-env.js';

const PROFILES: ProfileConfig[] = [
  {name: 'e2e-lc-amd64', architectures: ['amd64'], readyDelayMs: 200},
  // One builder that runs both architectures (arm64 under QEMU): a multi-platform build on one BuildKit.
  {name: 'e2e-lc-multiarch', architectures: ['amd64', 'arm64'], buildersPerAssignment: 1, readyDelayMs: 200}
];

/**
 * What buildx says when a multi-platform image is loaded into an engine on the classic store: it cannot
 * export an index with the docker exporter (checked against buildx 0.13.1 and 0.29.1).
 */
const MULTI_PLATFORM_LOAD_FAILS = /docker exporter does not (currently )?support exporting manifest lists/;
/** The local check (core's checkMultiPlatformLoad) that refuses such a load before anything is assigned. */
const LOCAL_CHECK = /needs its containerd image store, and this engine uses the classic one/;

let env: E2eEnv;
let emu: E2eEmulator;
const workspaces: Workspace[] = [];
const loadedImages: string[] = [];

beforeAll(async () => {
  env = await requireE2eEnv();
  emu = await env.startEmulator({profiles: PROFILES});
  const c = env.state.classicEngine;
  console.log(
    `e2e environment (${env.state.set}): builders on dockerd ${env.state.dockerVersion} (containerd store), ` +
      `buildx ${env.state.buildxVersion}; load into dockerd ${c.dockerVersion} (classic store, ${c.storageDriver}) on ${c.dockerSocket}`
  );
});

afterAll(async () => {
  if (emu) await emu.close();
  if (workspaces[0]) {
    for (const image of loadedImages) {
      await workspaces[0].docker(['image', 'rm', '--force', image], {env: env.classicDockerEnv()});
    }
  }
  for (const ws of workspaces) ws.cleanup();
});

function workspace(label: string): Workspace {
  const ws = env.workspace(label);
  workspaces.push(ws);
  return ws;
}

/** A build-push job whose docker commands talk to the classic-store engine. */
function classicJob(ws: Workspace, job: string, inputs: Record<string, string>): JobRunOpts {
  return actionJob({
    action: 'build-push',
    emulator: emu,
    workspace: ws,
    job,
    inputs: {timeout: '120000', ...inputs},
    env: env.classicDockerEnv()
  });
}

describe('build-push (bundled) with load: true into an engine on the classic image store', () => {
  test('single platform: the image is loaded into the classic engine (not the builders’ engine); docker run prints what the build wrote', async () => {
    const ws = workspace('lc1');
    const run = randomBytes(6).toString('hex');
    const ctx = ws.context('lc1', {run: `echo classic-${run} > /loaded.txt`});
    const tag = `rba-e2e/classic-load-${run}:v1`;
    loadedImages.push(tag);
    const job = classicJob(ws, 'lc1', {'profile-name': 'e2e-lc-amd64', context: ctx.dir, load: 'true', tags: tag});
    const main = mustSucceed('build-push main', await runMain(job));
    const ids = assignedIds(main);
    expect(ids).toHaveLength(1);
    expect(emu.reasons(ids)).toEqual(allTornDown(ids));
    mustSucceed('build-push post', await runPost(job, main));
    expect(emu.stillAssigned()).toEqual([]);
    expect(ws.buildxBuilders()).toEqual([]);

    const classic = env.classicDockerEnv();
    const out = await ws.dockerOk(['run', '--rm', '--network', 'none', tag, '/busybox', 'cat', '/loaded.txt'], {
      env: classic
    });
    expect(out.stdout).toBe(`classic-${run}\n`);
    // The classic store names an image by its config digest: what imageid reports, on every buildx version.
    const inspect = await ws.dockerOk(['image', 'inspect', '--format', '{{.Id}} {{.Architecture}}', tag], {
      env: classic
    });
    expect(inspect.stdout.trim()).toBe(`${main.outputs['imageid']} amd64`);
    // The builders' own engine did not get it.
    expect((await ws.docker(['image', 'inspect', tag])).code).not.toBe(0);
    console.log(
      `classic load: ${tag} loaded as ${main.outputs['imageid']} (digest output ${main.outputs['digest']}); ` +
        `docker run printed ${JSON.stringify(out.stdout)}`
    );
  });

  test('multi-platform: the load fails (the classic store cannot hold an index); nothing stays assigned', async () => {
    // Until the bundle has the local check, buildx runs the build and fails at the export.
    const localCheck = bundleIncludes('build-push', 'this engine uses the classic one');
    const ledgerBefore = emu.entries().length;
    const ws = workspace('lc2');
    const tag = `rba-e2e/classic-load-multi-${randomBytes(6).toString('hex')}:v1`;
    const job = classicJob(ws, 'lc2', {
      'profile-name': 'e2e-lc-multiarch',
      context: ws.context('lc2').dir,
      platforms: 'linux/amd64,linux/arm64',
      load: 'true',
      tags: tag
    });
    const main = await runMain(job);
    const error = errorOf(main);
    const ids = assignedIds(main);
    if (localCheck) {
      expect({exit: main.exitCode, error}).toEqual({exit: 1, error: expect.stringMatching(LOCAL_CHECK)});
      expect(loggedBuildxCommands(main, 'build')).toEqual([]);
      expect({ids, ledger: emu.entries().length}).toEqual({ids: [], ledger: ledgerBefore});
    } else {
      expect({exit: main.exitCode, error}).toEqual({exit: 1, error: expect.stringMatching(MULTI_PLATFORM_LOAD_FAILS)});
      expect(loggedBuildxCommands(main, 'build')).toHaveLength(1);
      expect(ids).toHaveLength(1);
      expect(emu.reasons(ids)).toEqual(allTornDown(ids));
    }
    mustSucceed('build-push post', await runPost(job, main));
    expect(emu.stillAssigned()).toEqual([]);
    expect(ws.buildxBuilders()).toEqual([]);
    expect((await ws.docker(['image', 'inspect', tag], {env: env.classicDockerEnv()})).code).not.toBe(0);
    console.log(
      `classic multi-platform load (buildx ${env.state.buildxVersion}, ${localCheck ? 'local check' : 'no local check in dist/'}): ${error}`
    );
  });
});
