// End to end: `buildx-version` with a real buildx of the OTHER version than the runner's (Debian's package of
// the other suite, unpacked by scripts/e2e-up.sh) put into the runner's tool cache, laid out as
// @actions/tool-cache does (`$RUNNER_TOOL_CACHE/docker-buildx/<version>/<arch>/docker-buildx` + `<arch>.complete`).
// The step must take it from the cache (no download) and run its docker calls with it. Issue 19 §5.
import {afterAll, beforeAll, describe, expect, test} from '@jest/globals';
import {copyFileSync, mkdirSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {buildxPlatform} from '@remote-builder-actions/core';
import {type ProfileConfig} from '../src/index.js';
import {
  actionJob,
  allTornDown,
  assignedIds,
  loggedBuildxCommands,
  mustSucceed,
  requireE2eEnv,
  runMain,
  runPost,
  type E2eEmulator,
  type E2eEnv,
  type Workspace
} from './e2e-env.js';

const PROFILES: ProfileConfig[] = [{name: 'e2e-bv-amd64', architectures: ['amd64'], readyDelayMs: 200}];

let env: E2eEnv;
let emu: E2eEmulator;
const workspaces: Workspace[] = [];

beforeAll(async () => {
  env = await requireE2eEnv();
  emu = await env.startEmulator({profiles: PROFILES});
});

afterAll(async () => {
  if (emu) await emu.close();
  for (const ws of workspaces) ws.cleanup();
});

/** A tool cache in `ws` holding the other buildx as release `version`. */
function toolCacheWithOtherBuildx(ws: Workspace, version: string): string {
  const root = join(ws.dir, 'tool-cache');
  const arch = buildxPlatform().arch;
  const dir = join(root, 'docker-buildx', version, arch);
  mkdirSync(dir, {recursive: true});
  copyFileSync(env.state.otherBuildx.binary, join(dir, 'docker-buildx'));
  writeFileSync(`${dir}.complete`, '');
  return root;
}

describe('build-push (bundled) with buildx-version set to a buildx in the tool cache', () => {
  test('the step takes the other buildx from the tool cache and every docker call of main and post runs it', async () => {
    const ws = env.workspace('bv');
    workspaces.push(ws);
    const other = env.state.otherBuildx;
    expect(other.version).not.toBe(env.state.buildxVersion.replace(/\+.*$/, ''));
    const repo = env.registry.uniqueRepo('bv');
    const ref = env.registry.ref(repo, 'v1');
    const job = actionJob({
      action: 'build-push',
      emulator: emu,
      workspace: ws,
      job: 'bv',
      inputs: {
        timeout: '120000',
        'profile-name': 'e2e-bv-amd64',
        'buildx-version': other.version,
        context: ws.context('bv').dir,
        push: 'true',
        tags: ref
      },
      env: {RUNNER_TOOL_CACHE: toolCacheWithOtherBuildx(ws, other.version)}
    });
    const main = mustSucceed('build-push main', await runMain(job));
    // Taken from the tool cache (nothing downloaded: no release server is reachable), and it is what
    // `docker buildx version` reports in the step, not the runner's plugin.
    expect(main.stdout).toMatch(new RegExp(`buildx v${other.version.replace(/\./g, '\\.')} found in the tool cache`));
    expect(main.stdout).toContain(`docker buildx ${other.version}`);
    expect(main.stdout).not.toContain(`docker buildx ${env.state.buildxVersion.replace(/\+.*$/, '')}`);
    expect(loggedBuildxCommands(main, 'build')).toHaveLength(1);
    const ids = assignedIds(main);
    expect(ids).toHaveLength(1);
    expect(emu.reasons(ids)).toEqual(allTornDown(ids));
    const manifest = await env.registry.requireManifest(repo, 'v1');
    expect(main.outputs['digest']).toBe(manifest.digest);

    const post = mustSucceed('build-push post', await runPost(job, main));
    expect(post.stdout).toMatch(/Removed the buildx installed/);
    expect(emu.stillAssigned()).toEqual([]);
    expect(ws.buildxBuilders()).toEqual([]);
    console.log(
      `buildx-version: runner's buildx ${env.state.buildxVersion}, step ran buildx ${other.reports} ` +
        `(Debian ${other.suite}) from the tool cache; pushed ${ref} at ${manifest.digest}`
    );
  });
});
