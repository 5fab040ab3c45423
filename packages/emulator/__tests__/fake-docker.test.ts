// The recording fake docker behaves as the buildx and Docker versions it is told to be (its header, README):
// a node down on `inspect --bootstrap`, a broken builder on `rm`, the image store on `docker info`. Driven
// through core's Buildx, as the actions run it.
import {afterEach, beforeEach, describe, expect, test} from '@jest/globals';
import {existsSync, mkdtempSync, readdirSync, readFileSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {dirname, join, resolve} from 'node:path';
import {fileURLToPath} from 'node:url';
import {BuilderNodesDownError, Buildx, BuildxError, NodeExec} from '@remote-builder-actions/core';

const DOCKER = resolve(dirname(fileURLToPath(import.meta.url)), '../fake-docker/docker');

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'fake-docker-test-'));
});
afterEach(() => rmSync(dir, {recursive: true, force: true}));

/** A Buildx on the fake docker, buildx's files in the test's folder. */
function buildxAs(version: string, env: Record<string, string> = {}): Buildx {
  return new Buildx({
    exec: new NodeExec(),
    docker: DOCKER,
    env: {
      FAKE_DOCKER_DIR: join(dir, 'docker'),
      BUILDX_CONFIG: join(dir, 'buildx'),
      FAKE_DOCKER_BUILDX_VERSION: version,
      FAKE_DOCKER_BUILDX_STORE: '1',
      ...env
    }
  });
}

/** Builder rb with local (not dialled) nodes b1 and b2. */
async function createTwoNodes(): Promise<void> {
  const exec = new NodeExec();
  const env = {FAKE_DOCKER_DIR: join(dir, 'docker'), BUILDX_CONFIG: join(dir, 'buildx'), FAKE_DOCKER_BUILDX_STORE: '1'};
  for (const args of [
    ['buildx', 'create', '--name', 'rb', '--node', 'b1', '--driver', 'docker-container'],
    ['buildx', 'create', '--name', 'rb', '--append', '--node', 'b2', '--driver', 'docker-container']
  ]) {
    const res = await exec.run(DOCKER, args, {env, silent: true});
    expect(res.exitCode).toBe(0);
  }
}

describe('inspect --bootstrap with a node down (docker/buildx#3062)', () => {
  test('buildx 0.21 exits 0 when another node booted: the node is inactive, and Buildx.bootstrap refuses it', async () => {
    await createTwoNodes();
    const buildx = buildxAs('0.21.3', {FAKE_DOCKER_NODE_DOWN: 'b2', FAKE_DOCKER_NODE_BOOTING: 'b1'});
    const e = await buildx.bootstrap('rb').catch((err: unknown) => err);
    expect(e).toBeInstanceOf(BuilderNodesDownError);
    expect((e as Error).message).toMatch(
      /^Failed to bootstrap buildx builder "rb": node b2 \(unix:\/\/\/var\/run\/docker\.sock\) is inactive \(its boot printed: ERROR: context deadline exceeded\)\. /
    );
  });

  test('buildx 0.22 fails whenever a node failed to boot', async () => {
    await createTwoNodes();
    const buildx = buildxAs('0.22.0', {FAKE_DOCKER_NODE_DOWN: 'b2', FAKE_DOCKER_NODE_BOOTING: 'b1'});
    const e = await buildx.bootstrap('rb').catch((err: unknown) => err);
    expect(e).toBeInstanceOf(BuildxError);
    expect(e).not.toBeInstanceOf(BuilderNodesDownError);
    expect((e as Error).message).toBe('Failed to bootstrap buildx builder "rb": ERROR: context deadline exceeded');
  });

  test('buildx 0.13 fails too when every node it booted failed', async () => {
    await createTwoNodes();
    await expect(buildxAs('0.13.1', {FAKE_DOCKER_NODE_DOWN: 'b2'}).bootstrap('rb')).rejects.toThrow(
      'Failed to bootstrap buildx builder "rb": ERROR: context deadline exceeded'
    );
  });
});

describe('rm of a broken builder (docker/buildx#3934)', () => {
  const files = (): string[] =>
    ['instances', 'activity'].flatMap(sub =>
      existsSync(join(dir, 'buildx', sub)) ? readdirSync(join(dir, 'buildx', sub)).map(f => `${sub}/${f}`) : []
    );

  test('buildx 0.35 keeps its files: Buildx.rm deletes them', async () => {
    await createTwoNodes();
    expect(files()).toEqual(['instances/rb', 'activity/rb']);
    const buildx = buildxAs('0.35.0', {FAKE_DOCKER_BROKEN_BUILDERS: 'rb'});
    await expect(buildx.rm('rb')).resolves.toBe('removed');
    expect(files()).toEqual([]);
  });

  test('buildx 0.36 deletes them and fails', async () => {
    await createTwoNodes();
    const buildx = buildxAs('0.36.1', {FAKE_DOCKER_BROKEN_BUILDERS: 'rb'});
    await expect(buildx.rm('rb')).rejects.toThrow(/^Failed to remove buildx builder "rb": failed to remove rb: /);
    expect(files()).toEqual([]);
    await expect(buildx.rm('rb')).resolves.toBe('absent');
  });
});

describe('docker info: the image store', () => {
  test.each([
    ['containerd', {store: 'containerd'}],
    ['classic', {store: 'classic'}]
  ])('FAKE_DOCKER_IMAGE_STORE=%s', async (store, expected) => {
    await expect(buildxAs('0.36.1', {FAKE_DOCKER_IMAGE_STORE: store}).imageStore()).resolves.toEqual(expected);
  });

  test('unset: no engine reachable', async () => {
    await expect(buildxAs('0.36.1').imageStore()).resolves.toEqual({
      store: undefined,
      why: 'Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?'
    });
  });
});

describe('build --load: the image id (docker/buildx#3136)', () => {
  const build = async (version: string, store: string) => {
    const exec = new NodeExec();
    const iid = join(dir, 'iid');
    const meta = join(dir, 'meta.json');
    const env = {
      FAKE_DOCKER_DIR: join(dir, 'docker'),
      FAKE_DOCKER_BUILDX_VERSION: version,
      FAKE_DOCKER_IMAGE_STORE: store
    };
    const argv = ['buildx', 'build', '--load', '--iidfile', iid, '--metadata-file', meta, '.'];
    expect((await exec.run(DOCKER, argv, {env, silent: true})).exitCode).toBe(0);
    const metadata = JSON.parse(readFileSync(meta, 'utf8')) as Record<string, string>;
    return {
      imageId: readFileSync(iid, 'utf8'),
      manifest: metadata['containerimage.digest'],
      config: metadata['containerimage.config.digest']
    };
  };

  test('containerd store, buildx 0.24: the manifest digest, and no config digest', async () => {
    const r = await build('0.24.0', 'containerd');
    expect(r.imageId).toBe(r.manifest);
    expect(r.config).toBeUndefined();
  });

  test.each([
    ['0.23.0', 'containerd'],
    ['0.36.1', 'classic']
  ])('buildx %s, %s store: another id than the manifest digest, with the config digest', async (version, store) => {
    const r = await build(version, store);
    expect(r.imageId).not.toBe(r.manifest);
    expect(r.config).toMatch(/^sha256:/);
  });
});
