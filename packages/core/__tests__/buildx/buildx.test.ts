import {describe, expect, test} from '@jest/globals';
import {existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {Buildx, BuildxError} from '../../src/buildx/buildx.js';
import {FakeExec} from '../fakes/fake-exec.js';

const certs = {cacert: '/c/ca.pem', cert: '/c/cert.pem', key: '/c/key.pem'};
const failing = (stderr: string, extra: {stdout?: string; killed?: 'timeout' | 'aborted'} = {}) =>
  new FakeExec(() => ({exitCode: 1, stderr, ...extra}));

describe('Buildx.version', () => {
  // prettier-ignore
  test.each<[number, string, string]>([
    [1, 'github.com/docker/buildx v0.13.1 788433953af10f2a698f5c07611dddce2e08c7a0\n', '0.13.1'],
    [2, 'github.com/docker/buildx 0.17.1-desktop.1 abc\n', '0.17.1'],
    [3, 'something odd\n', 'something odd']
  ])('[%d] parses %o as %o', async (_n, stdout, expected) => {
    const exec = new FakeExec(() => ({stdout}));
    await expect(new Buildx({exec}).version()).resolves.toBe(expected);
    expect(exec.calls).toEqual([{command: 'docker', args: ['buildx', 'version'], opts: {silent: true, timeoutMs: 15000, signal: undefined}}]);
  });

  test('throws with the last stderr line when buildx is missing', async () => {
    const exec = failing("docker: 'buildx' is not a docker command.\nSee 'docker --help'\n");
    await expect(new Buildx({exec}).version()).rejects.toHaveProperty(
      'message',
      "docker buildx is not available: See 'docker --help'"
    );
  });
});

describe('Buildx.createNode', () => {
  test('runs docker with the createNode argv, the docker path and env given', async () => {
    const exec = new FakeExec();
    const signal = new AbortController().signal;
    const buildx = new Buildx({exec, docker: '/usr/bin/docker', env: {DOCKER_CONFIG: '/cfg'}});
    await buildx.createNode(
      {name: 'rb', node: 'b1', endpoint: 'tcp://h:1', certs, platforms: ['linux/amd64'], use: true},
      {signal, timeoutMs: 5000}
    );
    expect(exec.calls).toEqual([
      {
        command: '/usr/bin/docker',
        args: [
          'buildx',
          'create',
          '--name',
          'rb',
          '--node',
          'b1',
          '--driver',
          'remote',
          '--driver-opt',
          'cacert=/c/ca.pem,cert=/c/cert.pem,key=/c/key.pem',
          '--platform',
          'linux/amd64',
          '--use',
          'tcp://h:1'
        ],
        opts: {signal, timeoutMs: 5000, env: {DOCKER_CONFIG: '/cfg'}}
      }
    ]);
  });

  test('without env, no env is passed to exec', async () => {
    const exec = new FakeExec();
    await new Buildx({exec}).createNode({name: 'rb', node: 'b1', endpoint: 'tcp://h:1', certs});
    expect(exec.calls[0]?.opts).toEqual({});
    expect(exec.calls[0]?.command).toBe('docker');
  });

  test('a failed create carries the last stderr line', async () => {
    const exec = failing(
      '#1 resolving\nERROR: existing instance for "rb" but no append mode, specify the node name to make changes for existing instances\n'
    );
    await expect(
      new Buildx({exec}).createNode({name: 'rb', node: 'b1', endpoint: 'tcp://h:1', certs})
    ).rejects.toHaveProperty(
      'message',
      'Failed to create buildx builder "rb" (node b1): ERROR: existing instance for "rb" but no append mode, specify the node name to make changes for existing instances'
    );
  });

  test('a failed append says so', async () => {
    const exec = failing('ERROR: failed to find instance "rb" for append\n');
    await expect(
      new Buildx({exec}).createNode({name: 'rb', node: 'b2', endpoint: 'tcp://h:1', certs, append: true})
    ).rejects.toHaveProperty(
      'message',
      'Failed to append node b2 to buildx builder "rb": ERROR: failed to find instance "rb" for append'
    );
  });

  test('with empty stderr the error falls back to stdout, then to "no output"', async () => {
    await expect(
      new Buildx({exec: failing('', {stdout: 'only stdout\n'})}).createNode({
        name: 'rb',
        node: 'b1',
        endpoint: 'tcp://h:1',
        certs
      })
    ).rejects.toHaveProperty('message', 'Failed to create buildx builder "rb" (node b1): only stdout');
    await expect(
      new Buildx({exec: failing('')}).createNode({name: 'rb', node: 'b1', endpoint: 'tcp://h:1', certs})
    ).rejects.toHaveProperty('message', 'Failed to create buildx builder "rb" (node b1): no output');
  });
});

describe('Buildx.bootstrap', () => {
  test('runs inspect --bootstrap and returns stdout', async () => {
    const exec = new FakeExec(() => ({stdout: 'Name: rb\nPlatforms: linux/amd64\n'}));
    await expect(new Buildx({exec}).bootstrap('rb', {timeoutMs: 7000})).resolves.toBe(
      'Name: rb\nPlatforms: linux/amd64\n'
    );
    expect(exec.calls).toEqual([
      {command: 'docker', args: ['buildx', 'inspect', '--bootstrap', '--builder', 'rb'], opts: {timeoutMs: 7000}}
    ]);
  });

  test('a failure carries the last stderr line', async () => {
    const exec = failing(
      '#1 booting buildkit\nERROR: failed to list workers: Unavailable: connection error: tls: bad certificate\n'
    );
    await expect(new Buildx({exec}).bootstrap('rb')).rejects.toHaveProperty(
      'message',
      'Failed to bootstrap buildx builder "rb": ERROR: failed to list workers: Unavailable: connection error: tls: bad certificate'
    );
  });

  test('a timeout says how long it waited', async () => {
    const exec = failing('#1 booting\n', {killed: 'timeout'});
    await expect(new Buildx({exec}).bootstrap('rb', {timeoutMs: 1234})).rejects.toHaveProperty(
      'message',
      'Failed to bootstrap buildx builder "rb": no answer within 1234 ms'
    );
  });
});

describe('Buildx.exists', () => {
  // prettier-ignore
  test.each<[number, number, boolean]>([
    [1, 0, true],
    [2, 1, false],
    [3, 127, false]
  ])('[%d] exit code %d → %s', async (_n, exitCode, expected) => {
    const exec = new FakeExec(() => ({exitCode}));
    await expect(new Buildx({exec}).exists('rb', {timeoutMs: 3000})).resolves.toBe(expected);
    expect(exec.calls).toEqual([{command: 'docker', args: ['buildx', 'inspect', '--builder', 'rb'], opts: {silent: true, timeoutMs: 3000}}]);
  });
});

describe('Buildx.rm', () => {
  test('runs buildx rm', async () => {
    const exec = new FakeExec();
    await new Buildx({exec}).rm('rb', {timeoutMs: 10000});
    expect(exec.calls).toEqual([{command: 'docker', args: ['buildx', 'rm', 'rb'], opts: {timeoutMs: 10000}}]);
    await expect(new Buildx({exec}).rm('rb')).resolves.toBe('removed');
  });

  test('a builder buildx does not know is reported absent, not an error', async () => {
    await expect(new Buildx({exec: failing('ERROR: no builder "rb" found\n')}).rm('rb')).resolves.toBe('absent');
  });

  test('a failure carries the last stderr line', async () => {
    const e = await new Buildx({exec: failing('ERROR: permission denied\n')}).rm('rb').catch((err: BuildxError) => err);
    expect(e).toBeInstanceOf(BuildxError);
    expect((e as BuildxError).message).toBe('Failed to remove buildx builder "rb": ERROR: permission denied');
    expect((e as BuildxError).timedOut).toBe(false);
  });

  test('a timeout says how long it waited', async () => {
    await expect(
      new Buildx({exec: failing('', {killed: 'timeout'})}).rm('rb', {timeoutMs: 10000})
    ).rejects.toMatchObject({
      message: 'Failed to remove buildx builder "rb": no answer within 10000 ms',
      timedOut: true
    });
  });

  test('forget deletes only the named record in DOCKER_CONFIG', async () => {
    const config = mkdtempSync(join(tmpdir(), 'buildx-forget-'));
    mkdirSync(join(config, 'buildx', 'instances'), {recursive: true});
    writeFileSync(join(config, 'buildx', 'instances', 'rb'), '{}');
    writeFileSync(join(config, 'buildx', 'instances', 'other'), '{}');
    const buildx = new Buildx({exec: new FakeExec(), env: {DOCKER_CONFIG: config}});
    expect(buildx.forget('rb')).toBe(true);
    expect(buildx.forget('rb')).toBe(false);
    expect(buildx.forget('../instances/other')).toBe(false);
    expect(existsSync(join(config, 'buildx', 'instances', 'other'))).toBe(true);
    rmSync(config, {recursive: true, force: true});
  });
});
