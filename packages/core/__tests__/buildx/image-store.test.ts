import {describe, expect, test} from '@jest/globals';
import {Buildx} from '../../src/buildx/buildx.js';
import {dockerInfoArgs, parseImageStore, type ImageStoreProbe} from '../../src/buildx/image-store.js';
import type {ExecResult} from '../../src/exec.js';
import {FakeExec} from '../fakes/fake-exec.js';

// What `docker info --format '{"ServerErrors":{{json .ServerErrors}},"DriverStatus":{{json .DriverStatus}}}'` prints.
const CLASSIC =
  '{"ServerErrors":null,"DriverStatus":[["Backing Filesystem","extfs"],["Supports d_type","true"],["Using metacopy","false"],["Native Overlay Diff","true"],["userxattr","false"]]}\n';
const CONTAINERD = '{"ServerErrors":null,"DriverStatus":[["driver-type","io.containerd.snapshotter.v1"]]}\n';
const NO_ENGINE =
  '{"ServerErrors":["Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?"],"DriverStatus":null}\n';

describe('parseImageStore', () => {
  // prettier-ignore
  test.each<[number, string, string, ImageStoreProbe]>([
    [1, 'Docker 26–28 (overlay2)', CLASSIC, {store: 'classic'}],
    [2, 'Docker 29 fresh install / containerd-snapshotter on', CONTAINERD, {store: 'containerd'}],
    [3, 'a classic driver with no status (vfs)', '{"ServerErrors":null,"DriverStatus":null}', {store: 'classic'}],
    [4, 'no engine: the CLI exits 0 with --format', NO_ENGINE,
      {store: undefined, why: 'Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?'}],
    [5, 'not JSON', 'Server:\n', {store: undefined, why: 'unexpected `docker info` output: "Server:"'}]
  ])('[%d] %s', (_n, _what, stdout, expected) => {
    expect(parseImageStore(stdout)).toEqual(expected);
  });
});

describe('Buildx.imageStore', () => {
  test('runs docker info with the format, silently, with the docker path and env', async () => {
    const exec = new FakeExec(() => ({stdout: CONTAINERD}));
    const buildx = new Buildx({exec, docker: '/bin/docker', env: {DOCKER_CONFIG: '/cfg'}});
    await expect(buildx.imageStore()).resolves.toEqual({store: 'containerd'});
    expect(exec.calls).toEqual([
      {
        command: '/bin/docker',
        args: dockerInfoArgs(),
        opts: {silent: true, timeoutMs: 15000, signal: undefined, env: {DOCKER_CONFIG: '/cfg'}}
      }
    ]);
  });

  // prettier-ignore
  test.each<[number, Partial<ExecResult>, string]>([
    [1, {exitCode: 1, stderr: 'template parsing error: template: :1: function "json" not defined\n'}, 'template parsing error: template: :1: function "json" not defined'],
    [2, {exitCode: 127, stderr: 'docker: spawn docker ENOENT', spawnError: 'ENOENT'}, 'docker: spawn docker ENOENT'],
    [3, {exitCode: 143, killed: 'timeout'}, 'no answer within 15000 ms']
  ])('[%d] docker cannot tell → no store, and why', async (_n, res, why) => {
    await expect(new Buildx({exec: new FakeExec(() => res)}).imageStore()).resolves.toEqual({store: undefined, why});
  });
});
