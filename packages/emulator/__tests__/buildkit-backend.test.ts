import {afterEach, describe, expect, test} from '@jest/globals';
import {mkdtempSync, rmSync} from 'node:fs';
import net from 'node:net';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {PassThrough} from 'node:stream';
import {
  type BuildkitBackend,
  createBuildkitBackends,
  DOCKERD_GRPC_HIJACK_REQUEST,
  DockerGrpcBackend,
  HandshakeOnlyBackend
} from '../src/buildkit-backend.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A fake dockerd on a unix socket: answers the hijack with `head` (plus `extra`), then echoes bytes. */
async function fakeDockerd(head: string, extra = ''): Promise<{path: string; requests: string[]}> {
  const dir = mkdtempSync(join(tmpdir(), 'rb-emu-'));
  const path = join(dir, 'docker.sock');
  const requests: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer(socket => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buf = '';
    let upgraded = false;
    socket.on('data', chunk => {
      if (upgraded) return void socket.write(chunk);
      buf += chunk.toString('latin1');
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      requests.push(buf.slice(0, end + 4));
      upgraded = true;
      socket.write(head + extra);
      if (!head.startsWith('HTTP/1.1 101')) socket.end();
      const rest = buf.slice(end + 4);
      if (rest) socket.write(rest);
    });
  });
  await new Promise<void>(r => server.listen(path, r));
  cleanups.push(async () => {
    for (const s of sockets) s.destroy();
    await new Promise(r => server.close(r));
    rmSync(dir, {recursive: true, force: true});
  });
  return {path, requests};
}

/** A connected TCP pair standing in for the decrypted TLS connection: `client` is the builder-side end. */
async function tcpPair(): Promise<{serverSide: net.Socket; clientSide: net.Socket}> {
  const server = net.createServer();
  await new Promise<void>(r => server.listen(0, '127.0.0.1', r));
  const accepted = new Promise<net.Socket>(r => server.once('connection', r));
  const clientSide = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
  const serverSide = await accepted;
  cleanups.push(async () => {
    clientSide.destroy();
    serverSide.destroy();
    await new Promise(r => server.close(r));
  });
  return {serverSide, clientSide};
}

function read(socket: net.Socket, bytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let buf = '';
    const onData = (c: Buffer): void => {
      buf += c.toString('latin1');
      if (buf.length >= bytes) {
        socket.off('data', onData);
        resolve(buf);
      }
    };
    socket.on('data', onData);
    socket.once('close', () => reject(new Error(`closed after ${JSON.stringify(buf)}`)));
  });
}

function closed(socket: net.Socket): Promise<void> {
  return new Promise(r => (socket.destroyed ? r() : socket.once('close', () => r())));
}

describe('DockerGrpcBackend', () => {
  test('sends the /grpc h2c hijack, forwards bytes after the 101 head, then pipes both ways', async () => {
    const dockerd = await fakeDockerd(
      'HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n',
      'EARLY'
    );
    const {serverSide, clientSide} = await tcpPair();
    new DockerGrpcBackend({socketPath: dockerd.path}).serve(serverSide);
    clientSide.write('PRI * HTTP/2.0');
    expect(await read(clientSide, 'EARLYPRI * HTTP/2.0'.length)).toBe('EARLYPRI * HTTP/2.0');
    clientSide.write('ping');
    expect(await read(clientSide, 4)).toBe('ping');
    expect(dockerd.requests).toEqual([DOCKERD_GRPC_HIJACK_REQUEST]);
  });

  test('closes the client when dockerd refuses the upgrade', async () => {
    const dockerd = await fakeDockerd('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n');
    const {serverSide, clientSide} = await tcpPair();
    const errors: string[] = [];
    new DockerGrpcBackend({socketPath: dockerd.path, onError: e => errors.push(e.message)}).serve(serverSide);
    await closed(clientSide);
    expect(errors[0]).toMatch(/refused the \/grpc upgrade: HTTP\/1.1 404/);
  });

  test('closes the client when the socket does not exist', async () => {
    const {serverSide, clientSide} = await tcpPair();
    const errors: string[] = [];
    new DockerGrpcBackend({
      socketPath: join(tmpdir(), 'no-such-docker.sock'),
      onError: e => errors.push(e.message)
    }).serve(serverSide);
    await closed(clientSide);
    expect(errors[0]).toMatch(/ENOENT/);
  });

  test('closes the client when dockerd never answers', async () => {
    const dockerd = await fakeDockerd('HTTP/1.1 101 Switching Protocols\r\n'); // head never completes
    const {serverSide, clientSide} = await tcpPair();
    const errors: string[] = [];
    new DockerGrpcBackend({socketPath: dockerd.path, upgradeTimeoutMs: 50, onError: e => errors.push(e.message)}).serve(
      serverSide
    );
    await closed(clientSide);
    expect(errors[0]).toMatch(/did not answer/);
  });
});

describe('HandshakeOnlyBackend', () => {
  test('writes nothing and ends when the client ends', async () => {
    const stream = new PassThrough();
    const written: Buffer[] = [];
    const backend = new HandshakeOnlyBackend();
    const origWrite = stream.write.bind(stream);
    stream.write = ((chunk: Buffer, ...rest: never[]) => {
      written.push(chunk);
      return origWrite(chunk, ...rest);
    }) as typeof stream.write;
    let ended = false;
    stream.end = (() => {
      ended = true;
      return stream;
    }) as typeof stream.end;
    backend.serve(stream);
    stream.push('client bytes');
    stream.push(null);
    await new Promise(r => setImmediate(r));
    expect(written).toEqual([]);
    expect(ended).toBe(true);
  });
});

describe('createBuildkitBackends', () => {
  /** What serves a builder: the dockerd socket, or the backend's kind. */
  const target = (b: BuildkitBackend): string => (b instanceof DockerGrpcBackend ? b.socketPath : b.kind);

  // prettier-ignore
  test.each<[number, Parameters<typeof createBuildkitBackends>[0], {amd64: string; arm64: string; both: string}]>([
    [1, {}, {amd64: 'control-api', arm64: 'control-api', both: 'control-api'}],
    [2, {dockerSocket: '/d.sock'}, {amd64: '/d.sock', arm64: '/d.sock', both: '/d.sock'}],
    [3, {dockerSocket: '/d.sock', dockerSocketByArch: {arm64: '/arm.sock'}}, {amd64: '/d.sock', arm64: '/arm.sock', both: '/d.sock'}],
    [4, {dockerSocketByArch: {amd64: '/amd.sock', arm64: '/arm.sock'}}, {amd64: '/amd.sock', arm64: '/arm.sock', both: 'control-api'}],
    [5, {dockerSocketByArch: {arm64: '/arm.sock'}}, {amd64: 'control-api', arm64: '/arm.sock', both: 'control-api'}],
    [6, {buildkit: {api: 'no-info', version: 'v0.10.6'}}, {amd64: 'control-api', arm64: 'control-api', both: 'control-api'}],
    [7, {buildkit: {api: 'preface-only'}}, {amd64: 'handshake-only', arm64: 'handshake-only', both: 'handshake-only'}],
    [8, {dockerSocketByArch: {arm64: '/arm.sock'}, buildkit: {api: 'preface-only'}}, {amd64: 'handshake-only', arm64: '/arm.sock', both: 'handshake-only'}],
    [9, {dockerSocket: '/d.sock', buildkit: {api: 'preface-only'}}, {amd64: '/d.sock', arm64: '/d.sock', both: '/d.sock'}]
  ])('%d: %j', (_n, opts, expected) => {
    const select = createBuildkitBackends(opts);
    expect({amd64: target(select('amd64')), arm64: target(select('arm64')), both: target(select('amd64,arm64'))}).toEqual(
      expected
    );
  });

  test('builders on one socket share one backend', () => {
    const select = createBuildkitBackends({dockerSocket: '/d.sock', dockerSocketByArch: {amd64: '/d.sock'}});
    expect(select('amd64')).toBe(select('arm64'));
  });

  test('each builder of the Control API gets a backend of its own (its own worker)', () => {
    const select = createBuildkitBackends({});
    expect(select('amd64')).not.toBe(select('amd64'));
  });

  test.each<[number, Parameters<typeof createBuildkitBackends>[0], RegExp]>([
    [
      1,
      {buildkit: {api: 'grpc' as never}},
      /^Invalid buildkit.api: "grpc"; use one of control, no-info, preface-only$/
    ],
    [2, {buildkit: {version: 13 as never}}, /^Invalid buildkit.version: 13; use a string such as "v0.13.2"$/]
  ])('%d: rejects %j', (_n, opts, message) => {
    expect(() => createBuildkitBackends(opts)).toThrow(message);
  });

  test('rejects a key that is not an architecture', () => {
    expect(() => createBuildkitBackends({dockerSocketByArch: {riscv64: '/r.sock'} as never})).toThrow(
      /"riscv64" is not an architecture/
    );
  });
});
