// A build step with buildx-version: the release is installed (own log group) before the local checks, and
// every docker call of the step (version, inspect, the build) runs with its private DOCKER_CONFIG. Without it,
// a runner lacking buildx is told to set buildx-version. Real loopback HTTP to a fake of docker/buildx's
// releases; a fake docker exec; the `builder` input, so nothing is assigned.
import {afterEach, beforeEach, expect, test} from '@jest/globals';
import {mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {DirToolCache} from '../../src/buildx-install/dir-tool-cache.js';
import {Env} from '../../src/inputs.js';
import {LOCAL_CHECKS_GROUP} from '../../src/provisioning/local-checks.js';
import {readBuildStepInputs} from '../../src/provisioning/action-inputs.js';
import {BuildStep} from '../../src/provisioning/build-step.js';
import {BuildxInstallState} from '../../src/provisioning/step-buildx.js';
import {FakeBuildxReleases} from '../../../emulator/src/testing/fake-buildx-releases.js';
import {FakeActionIO} from '../fakes/fake-action-io.js';
import {FakeExec, type ExecCall} from '../fakes/fake-exec.js';
import {PhaseLogger} from './phase-logger.js';

let root: string;
let fake: FakeBuildxReleases;
beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), 'build-step-buildx-'));
  fake = await FakeBuildxReleases.start();
});
afterEach(async () => {
  await fake.close();
  rmSync(root, {recursive: true, force: true});
});

const INSPECT =
  'Name: shared\nDriver: remote\n\nNodes:\nName: n0\nEndpoint: tcp://x:1\nStatus: running\nPlatforms: linux/amd64\n';

/** A docker whose buildx answers as `version` (or is missing), inspect and build. */
function docker(version: string | undefined): FakeExec {
  return new FakeExec((call: ExecCall) => {
    // `docker buildx version`, or the plugin asked directly (`<plugin> version`).
    if (call.args[1] === 'version' || call.args[0] === 'version') {
      return version
        ? {stdout: `github.com/docker/buildx v${version} abc1234\n`}
        : {exitCode: 1, stderr: "docker: 'buildx' is not a docker command.\n"};
    }
    if (call.args[1] === 'inspect' || call.args[0] === 'inspect') return {stdout: INSPECT};
    return {};
  });
}

/** A docker CLI at a path of its own: a binary (the buildx plugin is asked directly) or a script (never). */
function dockerCli(kind: 'binary' | 'script'): string {
  const path = join(root, kind, 'docker');
  mkdirSync(join(root, kind), {recursive: true});
  writeFileSync(path, kind === 'binary' ? '\x7fELF' : '#!/bin/sh\n', {mode: 0o755});
  return path;
}

async function step(inputs: Record<string, string>, exec: FakeExec, docker: string) {
  const io = new FakeActionIO(
    {builder: 'shared', ...inputs},
    {RUNNER_TEMP: join(root, 'temp'), DOCKER_CONFIG: join(root, 'user'), [Env.BuildxReleasesUrl]: fake.baseUrl}
  );
  const logger = new PhaseLogger();
  Object.defineProperty(io, 'logger', {value: logger});
  const run = (async () => {
    const build = await BuildStep.open(
      // The plugin lookup runs as in production (this fake exec then plays the plugin it finds).
      {io, exec, docker, findBuildxPlugin: true, loadToolCache: async () => new DirToolCache(join(root, 'tool-cache'))},
      {action: 'build-push', inputs: {...readBuildStepInputs(io), 'github-token': ''}}
    );
    try {
      const version = await build.checkLocal(async v => v);
      const acquired = await build.acquire();
      return await acquired.build(async target => {
        await build.runBuildx({title: 'Building', args: ['build', '--builder', target.name, '.']});
        return version;
      });
    } finally {
      build.close();
    }
  })();
  return {io, logger, run};
}

test('buildx-version: installed first, then every docker call of the step runs it', async () => {
  const exec = docker('0.19.3');
  const {io, logger, run} = await step({'buildx-version': 'v0.19.3'}, exec, dockerCli('binary'));
  await expect(run).resolves.toBe('0.19.3');
  const dir = io.state.get(BuildxInstallState.DockerConfig);
  expect(dir).toContain(join(root, 'temp'));
  expect(logger.groups.slice(0, 2)).toEqual(['Installing buildx v0.19.3', LOCAL_CHECKS_GROUP]);
  // The installed plugin runs buildx's own commands itself (told it runs standalone); the build goes
  // through docker.
  const plugin = join(dir as string, 'cli-plugins', 'docker-buildx');
  expect(exec.calls.map(c => [c.command, ...c.args.slice(0, 2)])).toEqual([
    [plugin, 'version'],
    [plugin, 'inspect', '--bootstrap'],
    [dockerCli('binary'), 'buildx', 'build']
  ]);
  expect(exec.calls[1]?.opts.env?.['DOCKER_CLI_PLUGIN_ORIGINAL_CLI_COMMAND']).toBe('');
  for (const c of exec.calls) expect(c.opts.env?.['DOCKER_CONFIG']).toBe(dir);
  // The build keeps its own variables next to the DOCKER_CONFIG.
  expect(exec.calls[2]?.opts.env).toEqual({BUILDX_METADATA_WARNINGS: 'true', DOCKER_CONFIG: dir});
});

test('empty: the runner buildx as it is; missing, the error says to set buildx-version', async () => {
  const ok = docker('0.13.1');
  // A script in front of docker: `docker buildx version` is asked, whatever plugins this machine has.
  const first = await step({}, ok, dockerCli('script'));
  await expect(first.run).resolves.toBe('0.13.1');
  expect(ok.calls.map(c => c.opts.env?.['DOCKER_CONFIG'])).toEqual([undefined, undefined, undefined]);
  expect(first.logger.groups[0]).toBe(LOCAL_CHECKS_GROUP);
  expect(fake.requests).toEqual([]);

  const missing = docker(undefined);
  const second = await step({}, missing, dockerCli('script'));
  await expect(second.run).rejects.toThrow(
    /docker has no buildx plugin .*, or set "buildx-version: latest" to install one$/
  );
  expect(missing.calls.map(c => c.args[1])).toEqual(['version']);
});
