// The buildx of a step (buildx-version): the runner's, or one installed over real loopback HTTP from a fake of
// docker/buildx's releases into a folder tool cache; its env reaches every docker call through execWithEnv.
import {afterEach, beforeEach, describe, expect, test} from '@jest/globals';
import {existsSync, mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {BuildxInstallError} from '../../src/buildx-install/buildx-install-error.js';
import {parseBuildxVersion} from '../../src/buildx-install/buildx-version.js';
import {DirToolCache} from '../../src/buildx-install/dir-tool-cache.js';
import type {ToolCache} from '../../src/buildx-install/tool-cache.js';
import {InputError} from '../../src/errors.js';
import {NodeExec} from '../../src/exec.js';
import {Env} from '../../src/inputs.js';
import {
  BuildxInstallState,
  defaultLoadToolCache,
  execWithEnv,
  installedDockerConfig,
  newerBuildxHint,
  removeInstalledBuildx,
  setUpStepBuildx
} from '../../src/provisioning/step-buildx.js';
import {FakeBuildxReleases, writeFakeDocker} from '../../../emulator/src/testing/fake-buildx-releases.js';
import {FakeActionIO} from '../fakes/fake-action-io.js';
import {FakeExec} from '../fakes/fake-exec.js';
import {PhaseLogger} from './phase-logger.js';

let root: string;
let fake: FakeBuildxReleases;

beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), 'step-buildx-'));
  fake = await FakeBuildxReleases.start();
});

afterEach(async () => {
  await fake.close();
  rmSync(root, {recursive: true, force: true});
});

/** A step's io on a runner whose tool cache is `cache`, downloading from the fake releases. */
function stepIo(extra: NodeJS.ProcessEnv = {}): FakeActionIO & {logger: PhaseLogger} {
  const io = new FakeActionIO(
    {},
    {
      RUNNER_TEMP: join(root, 'temp'),
      DOCKER_CONFIG: join(root, 'user-docker'),
      [Env.BuildxReleasesUrl]: fake.baseUrl,
      ...extra
    }
  );
  const logger = new PhaseLogger();
  Object.defineProperty(io, 'logger', {value: logger});
  return io as FakeActionIO & {logger: PhaseLogger};
}

const folderCache = (): ToolCache => new DirToolCache(join(root, 'tool-cache'));

describe('setUpStepBuildx', () => {
  test('empty buildx-version: the runner buildx, nothing loaded, saved or logged', async () => {
    const io = stepIo();
    let loaded = 0;
    const got = await setUpStepBuildx({
      request: parseBuildxVersion(''),
      io,
      loadToolCache: async () => {
        loaded++;
        return folderCache();
      }
    });
    expect(got).toEqual({env: {}});
    expect(loaded).toBe(0);
    expect(io.state.values.size).toBe(0);
    expect(io.logger.events).toEqual([]);
    expect(fake.requests).toEqual([]);
  });

  test('a release: installed in its own group, saved for post; the next step uses the tool cache', async () => {
    const cache = folderCache();
    const io = stepIo();
    const first = await setUpStepBuildx({request: parseBuildxVersion('v0.19.3'), io, loadToolCache: async () => cache});
    expect(io.logger.groups).toEqual(['Installing buildx v0.19.3']);
    expect(io.logger.groupOf('Verified buildx-v0.19.3')).toBe('Installing buildx v0.19.3');
    expect(first.env).toEqual({DOCKER_CONFIG: first.installed?.dockerConfig});
    expect(io.state.get(BuildxInstallState.DockerConfig)).toBe(first.installed?.dockerConfig);
    const downloads = fake.requests.length;

    // docker (a fake that runs $DOCKER_CONFIG/cli-plugins/docker-buildx) through the step's exec.
    const docker = writeFakeDocker(join(root, 'bin'));
    const exec = execWithEnv(new NodeExec({}), first.env);
    const res = await exec.run(docker, ['buildx', 'version'], {silent: true});
    expect(res.stdout).toMatch(/^github\.com\/docker\/buildx v0\.19\.3 /);

    const io2 = stepIo();
    const second = await setUpStepBuildx({
      request: parseBuildxVersion('0.19.3'),
      io: io2,
      loadToolCache: async () => cache
    });
    expect(io2.logger.groups).toEqual(['Using buildx v0.19.3 from the tool cache']);
    expect(second.installed?.fromCache).toBe(true);
    expect(second.installed?.dockerConfig).not.toBe(first.installed?.dockerConfig);
    expect(fake.requests.length).toBe(downloads);
  });

  test('latest: resolved by the releases, in a group of its own', async () => {
    const io = stepIo();
    const got = await setUpStepBuildx({
      request: parseBuildxVersion('latest'),
      io,
      loadToolCache: async () => folderCache()
    });
    expect(got.installed?.version).toBe('0.19.3');
    expect(io.logger.groups).toEqual(['Installing the latest buildx']);
    expect(io.logger.groupOf('buildx-version latest is v0.19.3')).toBe('Installing the latest buildx');
  });

  test('a failed download throws the installer error and saves nothing', async () => {
    fake.fault = {kind: 'wrong-checksum'};
    const io = stepIo();
    const got = setUpStepBuildx({request: parseBuildxVersion('0.19.3'), io, loadToolCache: async () => folderCache()});
    await expect(got).rejects.toThrow(BuildxInstallError);
    await expect(got).rejects.toThrow(/Checksum mismatch for buildx-v0\.19\.3\./);
    expect(io.state.get(BuildxInstallState.DockerConfig)).toBe('');
  });

  test('a bad REMOTE_BUILDER_BUILDX_RELEASES_URL fails before any request', async () => {
    const io = stepIo({[Env.BuildxReleasesUrl]: 'http://mirror.example.com/buildx'});
    const got = setUpStepBuildx({request: parseBuildxVersion('0.19.3'), io, loadToolCache: async () => folderCache()});
    await expect(got).rejects.toThrow(InputError);
    expect(fake.requests).toEqual([]);
  });

  test('cancelled during the download: reported as a cancellation', async () => {
    fake.fault = {kind: 'slow-body'};
    const ac = new AbortController();
    fake.onSlowBodyStarted = () => ac.abort(new Error('SIGTERM'));
    const io = stepIo();
    await expect(
      setUpStepBuildx({
        request: parseBuildxVersion('0.19.3'),
        io,
        signal: ac.signal,
        loadToolCache: async () => folderCache()
      })
    ).rejects.toThrow(/while installing buildx/);
  });
});

describe('execWithEnv', () => {
  test('adds the env to every call, over the call’s own; no env: the same exec', async () => {
    const inner = new FakeExec();
    expect(execWithEnv(inner, {})).toBe(inner);
    const exec = execWithEnv(inner, {DOCKER_CONFIG: '/private'});
    await exec.run('docker', ['buildx', 'ls']);
    await exec.run('docker', ['buildx', 'bake'], {
      env: {BUILDX_BAKE_GIT_AUTH_TOKEN: 't', DOCKER_CONFIG: '/theirs'},
      cwd: '/w'
    });
    expect(inner.calls.map(c => c.opts)).toEqual([
      {env: {DOCKER_CONFIG: '/private'}},
      {env: {BUILDX_BAKE_GIT_AUTH_TOKEN: 't', DOCKER_CONFIG: '/private'}, cwd: '/w'}
    ]);
  });
});

describe('post: the installed buildx', () => {
  test('found from state while it exists, then removed', async () => {
    const io = stepIo();
    expect(installedDockerConfig(io)).toBeUndefined();
    const got = await setUpStepBuildx({
      request: parseBuildxVersion('0.19.3'),
      io,
      loadToolCache: async () => folderCache()
    });
    const dir = got.installed?.dockerConfig as string;
    expect(installedDockerConfig(io)).toBe(dir);
    removeInstalledBuildx(io, dir);
    expect(existsSync(dir)).toBe(false);
    // The user's config folder stays.
    expect(existsSync(join(root, 'user-docker', 'buildx'))).toBe(true);
    expect(installedDockerConfig(io)).toBeUndefined();
  });
});

test('newerBuildxHint names the input and the release', () => {
  expect(newerBuildxHint('0.15.0')).toBe(
    'set "buildx-version: latest" (or v0.15.0 or later) to install a newer buildx for the step'
  );
});

describe('defaultLoadToolCache', () => {
  test('on a runner: the @actions/tool-cache adapter, imported on demand; elsewhere none', async () => {
    const {actionsToolCache} = await import('../../src/adapters/tool-cache.js');
    expect(await defaultLoadToolCache({RUNNER_TOOL_CACHE: join(root, 'tc')})()).toBe(actionsToolCache);
    expect(await defaultLoadToolCache({})()).toBeUndefined();
  });
});
