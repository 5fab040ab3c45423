import {afterEach, beforeEach, describe, expect, test} from '@jest/globals';
import {chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {malformedPlatform} from '../../src/docker/platform-guard.js';
import {InputError} from '../../src/errors.js';
import {Buildx} from '../../src/buildx/buildx.js';
import {parseBakeDefinition} from '../../src/docker/bake-definition.js';
import {
  bakeLoadedBuilds,
  checkMultiPlatformLoad,
  checkPlatformNames,
  CommandNotFoundError,
  requireCommand,
  type LoadedBuild
} from '../../src/provisioning/local-checks.js';
import {FakeExec} from '../fakes/fake-exec.js';
import {RecordingLogger} from '../fakes/recording-logger.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'local-checks-test-'));
});
afterEach(() => {
  rmSync(dir, {recursive: true, force: true});
});

describe('malformedPlatform / checkPlatformNames', () => {
  test.each([
    ['linux/amd64'],
    ['linux/arm64/v8'],
    ['linux/386'],
    ['linux/x86_64'],
    ['arm64'],
    ['linux'],
    ['local'],
    ['linux/riscv64']
  ])('%s is a platform', p => {
    expect(malformedPlatform([p])).toBeUndefined();
  });

  test.each([['linux/amd64x'], ['linux/arm64/v8/x'], ['linux amd64'], ['amd64x'], ['linux/']])(
    '%s is not a platform',
    p => {
      expect(malformedPlatform(['linux/amd64', p])).toBe(p);
    }
  );

  test('the error names the input, the value and the form', () => {
    expect(() => checkPlatformNames(['linux/amd64x'], '--platforms')).toThrow(InputError);
    expect(() => checkPlatformNames(['linux/amd64x'], '--platforms')).toThrow(
      'Input "--platforms": "linux/amd64x" is not a platform: use os/arch[/variant], e.g. linux/amd64 or linux/arm64'
    );
  });
});

describe('requireCommand', () => {
  function executable(path: string, mode = 0o755): void {
    writeFileSync(path, '#!/bin/sh\nexit 0\n');
    chmodSync(path, mode);
  }

  test('found on PATH: the first executable file of that name', () => {
    mkdirSync(join(dir, 'a'));
    mkdirSync(join(dir, 'b'));
    executable(join(dir, 'a', 'tool'), 0o644); // not executable: skipped
    executable(join(dir, 'b', 'tool'));
    expect(requireCommand('tool', {env: {PATH: `${join(dir, 'a')}:${join(dir, 'b')}`}, cwd: dir})).toBe(
      join(dir, 'b', 'tool')
    );
  });

  test('not on PATH: a CommandNotFoundError naming the command and the fix', () => {
    let err: unknown;
    try {
      requireCommand('no-such-tool', {env: {PATH: dir}, cwd: dir});
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CommandNotFoundError);
    expect((err as CommandNotFoundError).command).toBe('no-such-tool');
    expect((err as Error).message).toBe(
      'Cannot run "no-such-tool": it is not found on PATH; install it or give its full path. Nothing was assigned'
    );
  });

  test('a path is resolved against cwd and must be an executable file', () => {
    executable(join(dir, 'run.sh'));
    expect(requireCommand('./run.sh', {env: {}, cwd: dir})).toBe(join(dir, 'run.sh'));
    expect(() => requireCommand('./sub', {env: {}, cwd: dir})).toThrow(
      `Cannot run "./sub": no executable file at ${join(dir, 'sub')}`
    );
    mkdirSync(join(dir, 'sub'));
    // A directory is not a command.
    expect(() => requireCommand('./sub', {env: {}, cwd: dir})).toThrow(CommandNotFoundError);
  });
});

describe('checkMultiPlatformLoad', () => {
  const store = (driverStatus: string) => `{"ServerErrors":null,"DriverStatus":${driverStatus}}`;
  const CLASSIC = store('[["Backing Filesystem","extfs"],["Supports d_type","true"]]');
  const CONTAINERD = store('[["driver-type","io.containerd.snapshotter.v1"]]');
  const inputs = {load: 'load', platforms: 'platforms'};
  const check = async (builds: LoadedBuild[], stdout: string, exitCode = 0) => {
    const exec = new FakeExec(() => ({stdout, exitCode}));
    const result = await checkMultiPlatformLoad(new Buildx({exec}), builds, {
      logger: new RecordingLogger(),
      inputs
    }).then(
      () => 'passes',
      (e: unknown) => e
    );
    return {result, infoCalls: exec.calls.length};
  };

  // prettier-ignore
  test.each<[number, string, LoadedBuild[], string, number, 'passes']>([
    [1, 'one platform: docker info not even run', [{platforms: ['linux/amd64']}], CLASSIC, 0, 'passes'],
    [2, 'the same platform twice is one', [{platforms: ['linux/arm64', 'linux/arm64']}], CLASSIC, 0, 'passes'],
    [3, 'no platform (the builder’s default)', [{platforms: []}], CLASSIC, 0, 'passes'],
    [4, 'two platforms, containerd store', [{platforms: ['linux/amd64', 'linux/arm64']}], CONTAINERD, 1, 'passes'],
    [5, 'two platforms, no engine reachable: not blocked (as before)',
      [{platforms: ['linux/amd64', 'linux/arm64']}], '{"ServerErrors":["Cannot connect to the Docker daemon"],"DriverStatus":null}', 1, 'passes']
  ])('[%d] %s', async (_n, _what, builds, stdout, infoCalls, expected) => {
    await expect(check(builds, stdout)).resolves.toEqual({result: expected, infoCalls});
  });

  test('docker info failing does not block', async () => {
    await expect(check([{platforms: ['linux/amd64', 'linux/arm64']}], '', 1)).resolves.toEqual({
      result: 'passes',
      infoCalls: 1
    });
  });

  test('two platforms on the classic store: an InputError naming load, platforms and the fixes, before any assignment', async () => {
    const {result} = await check([{platforms: ['linux/amd64', 'linux/arm64']}], CLASSIC);
    expect(result).toBeInstanceOf(InputError);
    expect((result as InputError).input).toBe('load');
    expect((result as Error).message).toBe(
      'Input "load": loading an image of more than one platform (linux/amd64, linux/arm64) into the runner\'s Docker Engine needs its containerd image store, and this engine uses the classic one, which holds one platform per image: buildx would fail with "docker exporter does not currently support exporting manifest lists". Fix: enable the containerd image store on the runner\'s engine ("features": {"containerd-snapshotter": true} in /etc/docker/daemon.json, then restart Docker; the default of fresh Docker 29 installs), or build one platform ("platforms"), or push the image instead of loading it. Nothing was assigned'
    );
  });

  test('bake: each target that loads several platforms is named, and how to build one platform', async () => {
    const exec = new FakeExec(() => ({stdout: CLASSIC}));
    const builds = [
      {target: 'app', platforms: ['linux/amd64', 'linux/arm64']},
      {target: 'docs', platforms: ['linux/amd64']},
      {target: 'cli', platforms: ['linux/amd64', 'linux/riscv64']}
    ];
    const onePlatform = 'the target\'s "platforms" in the bake file, or "set": <target>.platform=linux/amd64';
    const e = await checkMultiPlatformLoad(new Buildx({exec}), builds, {
      logger: new RecordingLogger(),
      inputs,
      onePlatform
    }).catch((err: unknown) => err);
    expect((e as Error).message).toMatch(
      /^Input "load": loading an image of more than one platform \(target "app": linux\/amd64, linux\/arm64; target "cli": linux\/amd64, linux\/riscv64\) into/
    );
    expect((e as Error).message).toContain(`or build one platform (${onePlatform}), or push`);
  });
});

describe('bakeLoadedBuilds', () => {
  // What `buildx bake --print` shows: outputs as strings (buildx < 0.20) or objects.
  const definition = parseBakeDefinition(
    JSON.stringify({
      target: {
        app: {platforms: ['linux/amd64', 'linux/arm64'], output: ['type=docker']},
        tarball: {platforms: ['linux/amd64', 'linux/arm64'], output: [{type: 'docker', dest: 'out.tar'}]},
        pushed: {platforms: ['linux/amd64', 'linux/arm64'], output: ['type=registry']},
        plain: {}
      }
    })
  );

  test('the targets exporting to the engine, with their platforms', () => {
    expect(bakeLoadedBuilds(definition, false)).toEqual([{target: 'app', platforms: ['linux/amd64', 'linux/arm64']}]);
  });

  test('with load, every target', () => {
    expect(bakeLoadedBuilds(definition, true).map(b => b.target)).toEqual(['app', 'tarball', 'pushed', 'plain']);
  });
});
