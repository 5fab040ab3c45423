import {afterEach, beforeAll, describe, expect, test} from '@jest/globals';
import {constants as h2} from 'node:http2';
import net from 'node:net';
import tls from 'node:tls';
import {BuilderEndpoint, type EndpointFront} from '../src/builder-endpoint.js';
import {
  CONTROL_INFO_PATH,
  CONTROL_LIST_WORKERS_PATH,
  ControlApiBackend,
  type ControlApiBackendOpts
} from '../src/buildkit-control.js';
import {ManualClock} from '../src/clock.js';
import {type BuilderPki, generateBuilderPki} from '../src/pki.js';
import {
  type ClientPems,
  decodeInfoResponse,
  decodeListWorkersResponse,
  grpcCall,
  grpcRequestHeaders,
  openSession
} from './grpc-client.js';
import {waitFor} from './support.js';

let pki: BuilderPki;
let pems: ClientPems;
const cleanups: (() => Promise<void> | void)[] = [];

beforeAll(async () => {
  pki = await generateBuilderPki({label: 'control'});
  pems = {ca: pki.caCert, cert: pki.clientCert, key: pki.clientKey};
});
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A builder endpoint on loopback whose connections the Control API backend serves. */
async function builder(
  opts: Partial<ControlApiBackendOpts> = {},
  front?: {front: EndpointFront; clock: ManualClock}
): Promise<BuilderEndpoint> {
  const endpoint = await BuilderEndpoint.listen({
    serverCert: pki.serverCert,
    serverKey: pki.serverKey,
    caCert: pki.caCert,
    backend: new ControlApiBackend({arch: 'amd64', ...opts}),
    ...front
  });
  cleanups.push(() => endpoint.close());
  return endpoint;
}

/** One call on a session of its own. */
async function call(endpoint: BuilderEndpoint, path: string, alpn?: string[]) {
  const session = openSession(endpoint.port, pems, alpn);
  try {
    return await grpcCall(session, path);
  } finally {
    session.destroy();
  }
}

const OK = {httpStatus: 200, contentType: 'application/grpc', grpcStatus: '0'};

describe('Control/Info', () => {
  const PACKAGE = 'github.com/moby/buildkit';
  const REVISION = expect.stringMatching(/^[0-9a-f]{40}$/);

  // prettier-ignore
  test.each<[number, Partial<ControlApiBackendOpts>, string[], object]>([
    [1, {}, ['h2'], {package: PACKAGE, version: 'v0.13.2', revision: REVISION}],
    [2, {version: 'v0.27.1'}, ['h2'], {package: PACKAGE, version: 'v0.27.1', revision: REVISION}],
    // grpc-go before 1.67 serves clients that offer no ALPN.
    [3, {}, [], {package: PACKAGE, version: 'v0.13.2', revision: REVISION}],
    // An empty version is left out of the message, as a proto3 encoder does: the client sees none.
    [4, {version: ''}, ['h2'], {package: PACKAGE}]
  ])('%d: %j, ALPN %j', async (_n, opts, alpn, version) => {
    const answer = await call(await builder(opts), CONTROL_INFO_PATH, alpn);
    expect(answer).toMatchObject(OK);
    expect(decodeInfoResponse(answer.message!)).toStrictEqual({buildkitVersion: version});
  });

  test("info: false → UNIMPLEMENTED in a trailers-only answer, grpc-go's message; ListWorkers still answers", async () => {
    const endpoint = await builder({info: false});
    expect(await call(endpoint, CONTROL_INFO_PATH)).toEqual({
      httpStatus: 200,
      contentType: 'application/grpc',
      grpcStatus: '12',
      grpcMessage: 'unknown method Info for service moby.buildkit.v1.Control'
    });
    expect(await call(endpoint, CONTROL_LIST_WORKERS_PATH)).toMatchObject(OK);
  });
});

describe('Control/ListWorkers', () => {
  test.each<[number, ControlApiBackendOpts['arch'], string[]]>([
    [1, 'amd64', ['amd64']],
    [2, 'arm64', ['arm64']],
    [3, 'amd64,arm64', ['amd64', 'arm64']]
  ])('%d: a %s builder → one OCI worker with a linux platform per architecture', async (_n, arch, archs) => {
    const endpoint = await builder({arch, version: 'v0.13.2'});
    const answer = await call(endpoint, CONTROL_LIST_WORKERS_PATH);
    expect(answer).toMatchObject(OK);
    const workers = decodeListWorkersResponse(answer.message ?? new Uint8Array());
    expect(workers).toEqual([
      {
        ID: expect.stringMatching(/^[0-9a-z]{25}$/),
        Labels: expect.objectContaining({'org.mobyproject.buildkit.worker.executor': 'oci'}),
        platforms: archs.map(a => ({Architecture: a, OS: 'linux'})),
        BuildkitVersion: {package: 'github.com/moby/buildkit', version: 'v0.13.2', revision: expect.any(String)}
      }
    ]);
    // One builder, one worker: a second connection sees the same one.
    const again = decodeListWorkersResponse((await call(endpoint, CONTROL_LIST_WORKERS_PATH)).message!);
    expect(again[0]?.ID).toBe(workers[0]?.ID);
  });
});

describe('other calls', () => {
  test.each<[number, string, string]>([
    [1, '/moby.buildkit.v1.Control/Solve', 'unknown method Solve for service moby.buildkit.v1.Control'],
    [2, '/grpc.health.v1.Health/Check', 'unknown service grpc.health.v1.Health'],
    [3, '/nonsense', 'malformed method name: "/nonsense"']
  ])('%d: %s → UNIMPLEMENTED, trailers only', async (_n, path, message) => {
    const answer = await call(await builder(), path);
    expect(answer).toEqual({httpStatus: 200, contentType: 'application/grpc', grpcStatus: '12', grpcMessage: message});
  });

  test('a path outside printable ASCII is percent-encoded in grpc-message', async () => {
    const answer = await call(await builder(), '/moby.buildkit.v1.Control/%é');
    expect(answer.grpcMessage).toBe('unknown method %25%C3%A9 for service moby.buildkit.v1.Control');
  });
});

describe('connection hygiene', () => {
  // prettier-ignore
  test.each<[number, string, (socket: tls.TLSSocket, tcp: net.Socket) => void]>([
    [1, 'sends the preface, then destroys the socket', socket => socket.end(H2_CLIENT_PREFACE, () => socket.destroy())],
    [2, 'sends the preface, then resets the connection', (socket, tcp) => socket.write(H2_CLIENT_PREFACE, () => tcp.resetAndDestroy())],
    [3, 'sends the preface, then ends its side', socket => socket.end(H2_CLIENT_PREFACE)],
    [4, 'sends an HTTP/1.1 request (the server closes)', socket => socket.write('GET / HTTP/1.1\r\nHost: b\r\n\r\n')],
    [5, 'sends the preface, then a malformed frame (the server closes)', socket => socket.write(Buffer.concat([H2_CLIENT_PREFACE, BAD_FRAME]))]
  ])('%d: a client that %s leaves the builder serving', async (_n, _what, act) => {
    const endpoint = await builder();
    const tcp = net.connect(endpoint.port, '127.0.0.1');
    tcp.on('error', () => undefined);
    const socket = tls.connect({socket: tcp, ...pems, ALPNProtocols: ['h2']});
    socket.on('error', () => undefined);
    // The server's SETTINGS frame, its first (as grpc-go's): the backend's HTTP/2 session is up.
    const first = await new Promise<Buffer>(resolve => socket.once('data', resolve));
    expect(first[3]).toBe(FRAME_SETTINGS);
    act(socket, tcp);
    await waitFor(() => endpoint.openConnections === 0);
    expect(await call(endpoint, CONTROL_INFO_PATH)).toMatchObject(OK);
  });

  test.each([
    [1, 'CANCEL', h2.NGHTTP2_CANCEL],
    [2, 'INTERNAL_ERROR', h2.NGHTTP2_INTERNAL_ERROR]
  ])(
    '%d: a call waits for the end of its request; reset (%s), it gets no answer and the session goes on',
    async (_n, _name, code) => {
      const endpoint = await builder();
      const session = openSession(endpoint.port, pems);
      cleanups.push(() => void session.destroy());
      const cancelled = session.request(grpcRequestHeaders(CONTROL_INFO_PATH));
      let answered = false;
      cancelled.on('response', () => (answered = true));
      cancelled.on('error', () => undefined);
      cancelled.write(Buffer.alloc(5)); // the message, but not the end of the request
      // A later call's headers follow the first's on the wire (stream ids rise): once answered, the server
      // has had the first call for a while.
      expect(await grpcCall(session, CONTROL_LIST_WORKERS_PATH)).toMatchObject(OK);
      expect(answered).toBe(false);
      await new Promise<void>(resolve => cancelled.close(code, resolve));
      expect(await grpcCall(session, CONTROL_INFO_PATH)).toMatchObject(OK);
      expect(answered).toBe(false);
    }
  );

  test("behind 'close-idle', the first bytes held by the front reach the backend", async () => {
    const endpoint = await builder({}, {front: 'close-idle', clock: new ManualClock()});
    expect(await call(endpoint, CONTROL_INFO_PATH)).toMatchObject(OK);
  });
});

const FRAME_SETTINGS = 4;
/** A HEADERS frame on stream 1 whose header block is not HPACK: a connection error (RFC 9113 §4.3). */
const BAD_FRAME = Buffer.from([0, 0, 3, 1, 0x5, 0, 0, 0, 1, 0xff, 0xff, 0xff]);
/** HTTP/2's client connection preface: the magic string and an empty SETTINGS frame. */
const H2_CLIENT_PREFACE = Buffer.concat([
  Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1'),
  Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0])
]);
