// The recording fake docker behaves as the buildx and Docker versions it is told to be (its header, README):
// a node down on `inspect --bootstrap`, a broken builder on `rm`, the image store on `docker info`. Driven
// through core's Buildx, as the actions run it.
import {afterEach, beforeEach, describe, expect, test} from '@jest/globals';
import {existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs';
import type {AddressInfo} from 'node:net';
import {tmpdir} from 'node:os';
import {dirname, join, resolve} from 'node:path';
import {createServer, type Server} from 'node:tls';
import {fileURLToPath} from 'node:url';
import {BuilderNodesDownError, Buildx, BuildxError, NodeExec} from '@remote-builder-actions/core';
import {generateBuilderPki} from '../src/pki.js';

const DOCKER = resolve(dirname(fileURLToPath(import.meta.url)), '../fake-docker/docker');

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'fake-docker-test-'));
  // A build context (builds run in dir): the fake docker reads its Dockerfile, as BuildKit does.
  writeFileSync(join(dir, 'Dockerfile'), 'FROM alpine:3.20\nWORKDIR /src\nCOPY . .\nRUN ./build.sh\n');
});
afterEach(() => rmSync(dir, {recursive: true, force: true}));

/** A Buildx on the fake docker, buildx's files in the test's folder. */
function buildxAs(version: string, env: Record<string, string> = {}): Buildx {
  return new Buildx({exec: new NodeExec(), docker: DOCKER, env: envAs(version, env)});
}

/** The fake docker's environment as that buildx version, buildx's files in the test's folder. */
function envAs(version: string, env: Record<string, string> = {}): Record<string, string> {
  return {
    FAKE_DOCKER_DIR: join(dir, 'docker'),
    BUILDX_CONFIG: join(dir, 'buildx'),
    FAKE_DOCKER_BUILDX_VERSION: version,
    ...env
  };
}

/** Builder rb with local (not dialled) nodes b1 and b2. */
async function createTwoNodes(): Promise<void> {
  const exec = new NodeExec();
  const env = {FAKE_DOCKER_DIR: join(dir, 'docker'), BUILDX_CONFIG: join(dir, 'buildx')};
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
      BUILDX_CONFIG: join(dir, 'buildx'),
      FAKE_DOCKER_BUILDX_VERSION: version,
      FAKE_DOCKER_IMAGE_STORE: store
    };
    const argv = ['buildx', 'build', '--load', '--iidfile', iid, '--metadata-file', meta, '.'];
    expect((await exec.run(DOCKER, argv, {env, silent: true, cwd: dir})).exitCode).toBe(0);
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

describe("the builder is buildx's record, where buildx keeps it", () => {
  const record = (): string => readFileSync(join(dir, 'buildx', 'instances', 'rb'), 'utf8');
  const opts = (n: string): string => `{"cacert":"/c/${n}/ca.pem","cert":"/c/${n}/cert.pem","key":"/c/${n}/key.pem"}`;
  const certs = (n: string) => ({cacert: `/c/${n}/ca.pem`, cert: `/c/${n}/cert.pem`, key: `/c/${n}/key.pem`});

  test('create, append and rm: the record buildx writes for our argv (captured from buildx 0.29.1)', async () => {
    const buildx = buildxAs('0.36.1');
    const create = {name: 'rb', endpoint: 'tcp://127.0.0.1:1001', platforms: ['linux/amd64'], use: true};
    await buildx.createNode({...create, node: 'n1', certs: certs('n1')});
    const n1 = `"Name":"n1","Endpoint":"tcp://127.0.0.1:1001"`;
    const tail = (n: string): string => `"DriverOpts":${opts(n)},"Flags":null,"Files":null}`;
    const amd64 = '{"architecture":"amd64","os":"linux"}';
    expect(record()).toBe(
      `{"Name":"rb","Driver":"remote","Nodes":[{${n1},"Platforms":[${amd64}],${tail('n1')}],"Dynamic":false}`
    );
    expect(statSync(join(dir, 'buildx', 'instances', 'rb')).mode & 0o777).toBe(0o600);
    const append = {
      name: 'rb',
      endpoint: 'tcp://127.0.0.1:1002',
      platforms: ['linux/amd64', 'linux/arm'],
      append: true
    };
    await buildx.createNode({...append, node: 'N2', certs: certs('n2')});
    // buildx lower-cases the node name, stores linux/arm as arm/v7 and drops n2's platforms from n1.
    const n2 = `"Name":"n2","Endpoint":"tcp://127.0.0.1:1002","Platforms":[${amd64},{"architecture":"arm","os":"linux","variant":"v7"}]`;
    expect(record()).toBe(
      `{"Name":"rb","Driver":"remote","Nodes":[{${n1},"Platforms":[],${tail('n1')},{${n2},${tail('n2')}],"Dynamic":false}`
    );
    await expect(buildx.rm('rb')).resolves.toBe('removed');
    expect(readdirSync(join(dir, 'buildx', 'instances'))).toEqual([]);
    expect(readdirSync(join(dir, 'buildx', 'activity'))).toEqual([]);
    await expect(buildx.exists('rb')).resolves.toBe(false);
  });

  describe('a node added by editing the record', () => {
    const servers: Server[] = [];
    afterEach(async () => {
      await Promise.all(servers.splice(0).map(s => new Promise(r => s.close(r))));
    });

    /** A mutual-TLS endpoint (as a BuildKit node holds TLS) and the node's certificate files; counts dials. */
    async function node(
      name: string
    ): Promise<{endpoint: string; certs: ReturnType<typeof certs>; dialled: () => number}> {
      const pki = await generateBuilderPki({label: name});
      let connections = 0;
      const server = createServer(
        {cert: pki.serverCert, key: pki.serverKey, ca: pki.caCert, requestCert: true, ALPNProtocols: ['h2']},
        socket => socket.end()
      );
      // The fake reports a node running only once the handshake with its files succeeded.
      server.on('connection', () => connections++);
      servers.push(server);
      await new Promise<void>(r => server.listen(0, '127.0.0.1', r));
      const files = join(dir, 'certs', name);
      mkdirSync(files, {recursive: true});
      const paths = {cacert: join(files, 'ca.pem'), cert: join(files, 'cert.pem'), key: join(files, 'key.pem')};
      writeFileSync(paths.cacert, pki.caCert);
      writeFileSync(paths.cert, pki.clientCert);
      writeFileSync(paths.key, pki.clientKey);
      const {port} = server.address() as AddressInfo;
      return {endpoint: `tcp://127.0.0.1:${port}`, certs: paths, dialled: () => connections};
    }

    test('is dialled by inspect --bootstrap, listed by ls and removed by rm, as one of create --append', async () => {
      const [a, b] = [await node('n1'), await node('n2')];
      const buildx = buildxAs('0.36.1');
      await buildx.createNode({
        name: 'rb',
        node: 'n1',
        endpoint: a.endpoint,
        certs: a.certs,
        platforms: ['linux/amd64']
      });
      const edited = JSON.parse(record()) as {Nodes: unknown[]};
      const added = {Name: 'n2', Endpoint: b.endpoint, Platforms: [{architecture: 'arm64', os: 'linux'}]};
      edited.Nodes.push({...added, DriverOpts: b.certs, Flags: null, Files: null});
      writeFileSync(join(dir, 'buildx', 'instances', 'rb'), JSON.stringify(edited), {mode: 0o600});

      const out = await buildx.bootstrap('rb');
      expect(out).toContain(`Name:      n2\nEndpoint:  ${b.endpoint}\nStatus:    running\n`);
      expect(out).toContain('Platforms: linux/arm64*');
      expect([a.dialled(), b.dialled()]).toEqual([1, 1]);
      const ls = await new NodeExec().run(DOCKER, ['buildx', 'ls'], {env: envAs('0.36.1'), silent: true});
      expect(ls.stdout).toMatch(new RegExp(` \\\\_ n2 +\\\\_ ${b.endpoint.replace(/[.]/g, '\\.')} +running`));
      await expect(buildx.rm('rb')).resolves.toBe('removed');
      expect(existsSync(join(dir, 'buildx', 'instances', 'rb'))).toBe(false);
    });
  });

  test("without BUILDX_CONFIG, in DOCKER_CONFIG's buildx folder; builders.json keeps only what buildx does not store", async () => {
    const buildx = buildxAs('0.36.1', {BUILDX_CONFIG: '', DOCKER_CONFIG: join(dir, 'docker-config')});
    await buildx.createNode({name: 'rb', node: 'n1', endpoint: 'tcp://127.0.0.1:1001', certs: certs('n1'), use: true});
    expect(existsSync(join(dir, 'buildx'))).toBe(false);
    expect(readdirSync(join(dir, 'docker-config', 'buildx', 'instances'))).toEqual(['rb']);
    expect(JSON.parse(readFileSync(join(dir, 'docker', 'builders.json'), 'utf8'))).toEqual({rb: {use: true}});
  });
});

describe('buildx build reads the build context’s Dockerfile, as BuildKit does', () => {
  const build = (args: string[]) =>
    new NodeExec().run(DOCKER, ['buildx', 'build', ...args], {
      env: {FAKE_DOCKER_DIR: join(dir, 'docker'), BUILDX_CONFIG: join(dir, 'buildx')},
      silent: true,
      cwd: dir
    });

  test('a context without a Dockerfile fails as buildx prints it', async () => {
    mkdirSync(join(dir, 'empty'));
    const res = await build(['-t', 'app:1', 'empty']);
    expect(res.exitCode).toBe(1);
    expect(res.stderr.trim().split('\n').slice(-1)).toEqual([
      'ERROR: failed to build: failed to solve: failed to read dockerfile: open Dockerfile: no such file or directory'
    ]);
    const named = await build(['-f', 'nope.Dockerfile', '.']);
    expect(named.stderr).toMatch(/failed to read dockerfile: open nope\.Dockerfile: no such file or directory\n$/);
  });

  test("the build's steps are the Dockerfile's, not a canned RUN", async () => {
    mkdirSync(join(dir, 'app'));
    writeFileSync(
      join(dir, 'app', 'Dockerfile'),
      '# syntax=docker/dockerfile:1\nFROM node:22 AS build\nWORKDIR /app\nENV CI=1\nRUN npm ci \\\n  && npm test\nCOPY . .\n'
    );
    const res = await build(['-t', 'app:1', 'app']);
    expect(res.exitCode).toBe(0);
    const steps = res.stderr.split('\n').filter(l => /^#\d+ \[\d+\/\d+\]/.test(l));
    expect(steps.map(l => l.replace(/^#\d+ /, '').replace(/@sha256:[0-9a-f]+$/, ''))).toEqual([
      '[1/4] FROM docker.io/library/node:22',
      '[2/4] WORKDIR /app',
      '[3/4] RUN npm ci && npm test',
      '[4/4] COPY . .'
    ]);
    expect(res.stderr).not.toContain('build.sh');
    // FROM scratch makes no vertex; a lower-case dockerfile is found too.
    mkdirSync(join(dir, 'scratch'));
    writeFileSync(join(dir, 'scratch', 'dockerfile'), 'FROM scratch\nCOPY hello.txt /\n');
    const scratch = await build(['scratch']);
    expect(scratch.stderr).toMatch(/^#\d+ \[1\/1\] COPY hello\.txt \/$/m);
    expect(scratch.stderr).not.toMatch(/FROM|load metadata/);
  });
});
