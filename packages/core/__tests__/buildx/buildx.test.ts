import {afterEach, beforeEach, describe, expect, test} from '@jest/globals';
import {existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync, type Dirent} from 'node:fs';
import {homedir, tmpdir} from 'node:os';
import {join, relative} from 'node:path';
import {BuilderNodesDownError, Buildx, BuildxError} from '../../src/buildx/buildx.js';
import {BuildxUnavailableError} from '../../src/buildx/buildx-unavailable.js';
import type {ExecResult} from '../../src/exec.js';
import {versionAtLeast} from '../../src/docker/version-gate.js';
import {FakeExec} from '../fakes/fake-exec.js';
import {RecordingLogger} from '../fakes/recording-logger.js';

const certs = {cacert: '/c/ca.pem', cert: '/c/cert.pem', key: '/c/key.pem'};
const failing = (stderr: string, extra: {stdout?: string; killed?: 'timeout' | 'aborted'} = {}) =>
  new FakeExec(() => ({exitCode: 1, stderr, ...extra}));

describe('Buildx.version', () => {
  // Real `docker buildx version` lines; docker's parseVersion cases (actions-toolkit __tests__/buildx/buildx.test.ts) first.
  // prettier-ignore
  test.each<[number, string, string]>([
    [1, 'github.com/docker/buildx 0.4.1+azure bda4882a65349ca359216b135896bddc1d92461c', '0.4.1'],
    [2, 'github.com/docker/buildx v0.4.2 fb7b670b764764dc4716df3eba07ffdae4cc47b2', '0.4.2'],
    [3, 'github.com/docker/buildx f117971 f11797113e5a9b86bd976329c5dbb8a8bfdfadfa', 'f117971'],
    [4, 'github.com/docker/buildx v0.13.1 788433953af10f2a698f5c07611dddce2e08c7a0\n', '0.13.1'],
    [5, 'github.com/docker/buildx 0.17.1-desktop.1 abc\n', '0.17.1'],
    [6, 'github.com/docker/buildx v0.21.0-rc1 2f4b1a3c\n', '0.21.0'],
    [7, 'github.com/docker/buildx 1a2b3c4 1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b\n', '1a2b3c4'],
    [8, 'github.com/docker/buildx 0.12.1+ds1-0ubuntu1~22.04.1 \n', '0.12.1']
  ])('[%d] parses %o as %o', async (_n, stdout, expected) => {
    const exec = new FakeExec(() => ({stdout}));
    // plugin: false, so a buildx plugin on this machine is not asked first (buildx-plugin.test.ts covers that).
    await expect(new Buildx({exec}).version({plugin: false})).resolves.toBe(expected);
    expect(exec.calls).toEqual([{command: 'docker', args: ['buildx', 'version'], opts: {silent: true, timeoutMs: 15000, signal: undefined}}]);
  });

  test('output without a version is an error naming it, not a version', async () => {
    const exec = new FakeExec(() => ({stdout: 'something odd\n'}));
    await expect(new Buildx({exec}).version()).rejects.toThrow(
      new BuildxError(
        'Cannot parse the buildx version from `docker buildx version`: "something odd"; check the buildx plugin on the runner'
      )
    );
  });

  // prettier-ignore
  test.each<[string, Partial<ExecResult>, string, RegExp]>([
    ['docker < 28 without buildx', {exitCode: 1, stderr: "docker: 'buildx' is not a docker command.\nSee 'docker --help'\n"}, 'no-buildx',
      /^docker buildx is not available: docker has no buildx plugin \(docker says: docker: 'buildx' is not a docker command\. See 'docker --help'\): install the buildx plugin on the runner \(https:\/\/docs\.docker\.com\/go\/buildx\/\)/],
    ['docker >= 28 without buildx', {exitCode: 1, stderr: "docker: unknown command: docker buildx\n\nRun 'docker --help' for more information\n"}, 'no-buildx',
      /docker has no buildx plugin \(docker says: docker: unknown command: docker buildx Run 'docker --help' for more information\)/],
    ['no docker', {exitCode: 127, stderr: 'docker: spawn docker ENOENT', spawnError: 'ENOENT'}, 'no-docker',
      /^docker buildx is not available: the Docker CLI \("docker"\) is not on PATH \(docker: spawn docker ENOENT\): run the job on a runner with the Docker CLI/],
    ['docker not executable', {exitCode: 127, stderr: '/opt/docker: spawn /opt/docker EACCES', spawnError: 'EACCES'}, 'no-docker',
      /the Docker CLI \("docker"\) cannot be run \(\/opt\/docker: spawn \/opt\/docker EACCES\)/],
    ['a broken plugin', {exitCode: 2, stderr: 'fork/exec /usr/libexec/docker/cli-plugins/docker-buildx: exec format error\n'}, 'broken',
      /`docker buildx version` failed \(fork\/exec \/usr\/libexec\/docker\/cli-plugins\/docker-buildx: exec format error\): check or reinstall/],
    ['a hang', {exitCode: 143, killed: 'timeout'}, 'timeout', /did not answer \(no answer within 15000 ms\)/]
  ])('%s: BuildxUnavailableError with docker’s reason and the fix', async (_what, res, reason, message) => {
    const e = await new Buildx({exec: new FakeExec(() => res)}).version().catch((err: unknown) => err);
    expect(e).toBeInstanceOf(BuildxUnavailableError);
    expect(e).toBeInstanceOf(BuildxError);
    expect((e as BuildxUnavailableError).reason).toBe(reason);
    expect((e as Error).message).toMatch(message);
    expect((e as Error).message).not.toMatch(/cancel/i);
  });

  test('the caller’s alternative is added to the fix', async () => {
    const exec = new FakeExec(() => ({exitCode: 1, stderr: "docker: 'buildx' is not a docker command.\n"}));
    await expect(new Buildx({exec}).version({alternative: 'set "setup-buildx: false"'})).rejects.toThrow(
      /\(docker says: docker: 'buildx' is not a docker command\.\): install the buildx plugin .*\(GitHub-hosted Ubuntu runners do\), or set "setup-buildx: false"$/
    );
  });

  test('stopped by the caller’s signal: a BuildxError saying so, not a missing buildx', async () => {
    const e = await new Buildx({exec: new FakeExec(() => ({exitCode: 143, killed: 'aborted'}))})
      .version()
      .catch((err: unknown) => err);
    expect(e).toBeInstanceOf(BuildxError);
    expect(e).not.toBeInstanceOf(BuildxUnavailableError);
    expect((e as Error).message).toMatch(/was stopped: the step was cancelled/);
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

describe('Buildx.bootstrap: every node must be up, whatever the exit code', () => {
  const out = (b2: string) =>
    `Name:   rb\nDriver: remote\n\nNodes:\nName:      b1\nEndpoint:  tcp://h:1\nStatus:    running\nPlatforms: linux/amd64*\n\nName:      b2\nEndpoint:  tcp://h:2\n${b2}\n`;

  // prettier-ignore
  test.each<[number, string, string, string]>([
    // buildx < 0.22 (docker/buildx#3062): a node failed to boot while another booted; exit 0.
    [1, 'Status:    inactive', '#1 [b0 internal] waiting for connection\n#2 [b2 internal] waiting for connection\n#1 DONE 0.2s\n#2 ERROR: context deadline exceeded\n',
      'node b2 (tcp://h:2) is inactive (its boot printed: ERROR: context deadline exceeded)'],
    // Every version: a node that failed while loaded is never booted; exit 0.
    [2, 'Error:     listing workers: connection error', '', 'node b2 (tcp://h:2) failed: listing workers: connection error'],
    [3, 'Status:    stopped', '', 'node b2 (tcp://h:2) is stopped']
  ])('[%d] %s → BuilderNodesDownError naming the node', async (_n, b2, stderr, named) => {
    const exec = new FakeExec(() => ({stdout: out(b2), stderr}));
    const e = await new Buildx({exec}).bootstrap('rb').catch((err: unknown) => err);
    expect(e).toBeInstanceOf(BuilderNodesDownError);
    expect(e).toBeInstanceOf(BuildxError);
    expect((e as BuilderNodesDownError).nodes).toEqual(['b2']);
    expect((e as Error).message).toBe(
      `Failed to bootstrap buildx builder "rb": ${named}. No build is started while a node is down: check that this runner reaches the node's endpoint (firewall, proxy) and that its BuildKit answers, then run the job again`
    );
  });

  test('the builder’s own Error line (its nodes could not be loaded) fails it too', async () => {
    const exec = new FakeExec(() => ({stdout: 'Name:   rb\nDriver: remote\nError:  context deadline exceeded\n'}));
    await expect(new Buildx({exec}).bootstrap('rb')).rejects.toThrow(
      /^Failed to bootstrap buildx builder "rb": buildx could not load its nodes: context deadline exceeded\. /
    );
  });

  test('every node running → the output', async () => {
    const exec = new FakeExec(() => ({stdout: out('Status:    running')}));
    await expect(new Buildx({exec}).bootstrap('rb')).resolves.toBe(out('Status:    running'));
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
    const env = {BUILDX_CONFIG: mkdtempSync(join(tmpdir(), 'buildx-rm-'))};
    const e = await new Buildx({exec: failing('ERROR: permission denied\n'), env})
      .rm('rb')
      .catch((err: BuildxError) => err);
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
    const buildx = new Buildx({exec: new FakeExec(), env: {DOCKER_CONFIG: config, BUILDX_CONFIG: ''}});
    expect(buildx.forget('rb')).toBe(true);
    expect(buildx.forget('rb')).toBe(false);
    expect(buildx.forget('../instances/other')).toBe(false);
    expect(existsSync(join(config, 'buildx', 'instances', 'other'))).toBe(true);
    rmSync(config, {recursive: true, force: true});
  });

  test('forget honours BUILDX_CONFIG (buildx’s own directory) over DOCKER_CONFIG, from our env or the process’s', async () => {
    const root = mkdtempSync(join(tmpdir(), 'buildx-forget-'));
    const buildxConfig = join(root, 'bx');
    const dockerConfig = join(root, 'docker');
    for (const dir of [join(buildxConfig, 'instances'), join(dockerConfig, 'buildx', 'instances')]) {
      mkdirSync(dir, {recursive: true});
      writeFileSync(join(dir, 'rb'), '{}');
    }
    const saved = process.env['BUILDX_CONFIG'];
    try {
      const ours = new Buildx({exec: new FakeExec(), env: {DOCKER_CONFIG: dockerConfig, BUILDX_CONFIG: buildxConfig}});
      expect(ours.configDir()).toBe(buildxConfig);
      expect(ours.forget('rb')).toBe(true);
      expect(existsSync(join(buildxConfig, 'instances', 'rb'))).toBe(false);
      expect(existsSync(join(dockerConfig, 'buildx', 'instances', 'rb'))).toBe(true);

      writeFileSync(join(buildxConfig, 'instances', 'rb'), '{}');
      process.env['BUILDX_CONFIG'] = buildxConfig;
      const inherited = new Buildx({exec: new FakeExec(), env: {DOCKER_CONFIG: dockerConfig}});
      expect(inherited.configDir()).toBe(buildxConfig);
      expect(inherited.forget('rb')).toBe(true);
      expect(existsSync(join(dockerConfig, 'buildx', 'instances', 'rb'))).toBe(true);

      // An empty BUILDX_CONFIG is unset for buildx: back to DOCKER_CONFIG/buildx.
      const emptied = new Buildx({exec: new FakeExec(), env: {DOCKER_CONFIG: dockerConfig, BUILDX_CONFIG: ''}});
      expect(emptied.configDir()).toBe(join(dockerConfig, 'buildx'));
      expect(emptied.forget('rb')).toBe(true);
      expect(existsSync(join(dockerConfig, 'buildx', 'instances', 'rb'))).toBe(false);
    } finally {
      if (saved === undefined) delete process.env['BUILDX_CONFIG'];
      else process.env['BUILDX_CONFIG'] = saved;
      rmSync(root, {recursive: true, force: true});
    }
  });

  test('without BUILDX_CONFIG or DOCKER_CONFIG, buildx’s directory is ~/.docker/buildx', () => {
    const buildx = new Buildx({exec: new FakeExec(), env: {DOCKER_CONFIG: '', BUILDX_CONFIG: ''}});
    expect(buildx.configDir()).toBe(join(homedir(), '.docker', 'buildx'));
  });
});

/**
 * buildx's store as `buildx rm` of a builder it cannot load leaves it (docker/buildx#3934): buildx < 0.36
 * keeps every file of it; >= 0.36 deletes instances/, activity/ and refs/ (store.Txn.Remove) and still fails.
 */
function brokenBuilderRm(version: string, dir: string): FakeExec {
  return new FakeExec(c => {
    if (c.args[1] === 'version') return {stdout: `github.com/docker/buildx v${version} abc\n`};
    if (c.args[1] !== 'rm') return {};
    const name = c.args[2] as string;
    if (versionAtLeast(version, '0.36.0')) {
      for (const sub of ['instances', 'activity', 'refs']) rmSync(join(dir, sub, name), {recursive: true, force: true});
    }
    return {
      exitCode: 1,
      stderr: `failed to remove ${name}: invalid buildkitd config\nERROR: failed to remove one or more builders\n`
    };
  });
}

/** The files buildx keeps of builders `rb` (with a bake group all its own, and a default) and `other`. */
function seedStore(dir: string): void {
  for (const b of ['rb', 'other']) {
    mkdirSync(join(dir, 'refs', b, `${b}0`), {recursive: true});
    writeFileSync(join(dir, 'refs', b, `${b}0`, 'ref1'), '{}');
    for (const sub of ['instances', 'activity']) {
      mkdirSync(join(dir, sub), {recursive: true});
      writeFileSync(join(dir, sub, b), sub === 'instances' ? `{"Name":"${b}"}` : '2026-11-26T10:00:00Z');
    }
  }
  mkdirSync(join(dir, 'refs', '__group__'), {recursive: true});
  writeFileSync(join(dir, 'refs', '__group__', 'g-rb'), JSON.stringify({Refs: ['rb/rb0/ref1', 'rb/rb0/ref2']}));
  writeFileSync(
    join(dir, 'refs', '__group__', 'g-mixed'),
    JSON.stringify({Refs: ['rb/rb0/ref3', 'other/other0/ref1']})
  );
  mkdirSync(join(dir, 'defaults'), {recursive: true});
  writeFileSync(join(dir, 'defaults', 'aaaa'), 'rb');
  writeFileSync(join(dir, 'defaults', 'bbbb'), 'other');
}

/** Every file under `dir`, relative, sorted. */
function filesUnder(dir: string): string[] {
  return (readdirSync(dir, {recursive: true, withFileTypes: true}) as Dirent[])
    .filter(d => d.isFile())
    .map(d => relative(dir, join(d.parentPath, d.name)))
    .sort();
}

const OTHERS_FILES = [
  'activity/other',
  'defaults/bbbb',
  'instances/other',
  'refs/__group__/g-mixed',
  'refs/other/other0/ref1'
];

describe('Buildx.rm of a builder buildx cannot load (docker/buildx#3934)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'buildx-store-'));
    seedStore(dir);
  });
  afterEach(() => rmSync(dir, {recursive: true, force: true}));

  test.each(['0.13.1', '0.35.0'])(
    'buildx %s keeps its files: they are deleted, the builder is removed',
    async version => {
      const logger = new RecordingLogger();
      const buildx = new Buildx({exec: brokenBuilderRm(version, dir), env: {BUILDX_CONFIG: dir}, logger});
      expect(await buildx.version()).toBe(version);
      await expect(buildx.rm('rb')).resolves.toBe('removed');
      expect(filesUnder(dir)).toEqual(OTHERS_FILES);
      expect(logger.messages('info')).toEqual([
        `\`docker buildx rm rb\` failed (failed to remove rb: invalid buildkitd config) and kept the builder's files; removed them from ${dir} (buildx < 0.36 keeps a builder it cannot load: docker/buildx#3934)`
      ]);
    }
  );

  test.each(['0.36.0', '0.37.1'])(
    'buildx %s deletes them itself and fails: its error, the default it leaves deleted',
    async version => {
      const buildx = new Buildx({exec: brokenBuilderRm(version, dir), env: {BUILDX_CONFIG: dir}});
      expect(await buildx.version()).toBe(version);
      await expect(buildx.rm('rb')).rejects.toThrow(
        new BuildxError('Failed to remove buildx builder "rb": failed to remove rb: invalid buildkitd config')
      );
      expect(filesUnder(dir)).toEqual(OTHERS_FILES);
    }
  );

  test('a stopped rm (time limit) deletes nothing: the caller decides', async () => {
    const exec = new FakeExec(() => ({exitCode: 143, killed: 'timeout'}));
    await expect(new Buildx({exec, env: {BUILDX_CONFIG: dir}}).rm('rb', {timeoutMs: 5})).rejects.toMatchObject({
      timedOut: true
    });
    expect(filesUnder(dir)).toContain('instances/rb');
  });

  test('forget takes a name in any case (buildx stores it lower-cased) and nothing that is not a builder name', () => {
    const buildx = new Buildx({exec: new FakeExec(), env: {BUILDX_CONFIG: dir}});
    expect(buildx.forget('../refs')).toBe(false);
    expect(buildx.forget('RB')).toBe(true);
    expect(filesUnder(dir)).toEqual(OTHERS_FILES);
    expect(buildx.forget('rb')).toBe(false);
  });
});
