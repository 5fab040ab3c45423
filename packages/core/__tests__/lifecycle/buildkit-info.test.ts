import {afterEach, beforeAll, describe, expect, test} from '@jest/globals';
import {BinaryWriter} from '@bufbuild/protobuf/wire';
import {createSecureServer, type Http2Server, type ServerHttp2Stream} from 'node:http2';
import type {AddressInfo} from 'node:net';
import {grpcBuildkitInfo, readInfoResponse} from '../../src/lifecycle/buildkit-info.js';
import {grpcMessages} from '../../src/net/grpc-call.js';
import {FakeClock} from '../fakes/fake-clock.js';
import {makePki, type TestPki} from '../fakes/test-pki.js';

let pki: TestPki;
beforeAll(async () => {
  pki = await makePki('info');
});

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** InfoResponse{buildkitVersion: BuildkitVersion{package, version, revision}}, with an unknown field before it. */
function infoResponse(version: string): Uint8Array {
  const bv = new BinaryWriter().tag(1, 2).string('github.com/moby/buildkit');
  bv.tag(2, 2).string(version).tag(3, 2).string('abc123').tag(9, 0).uint32(7);
  return new BinaryWriter().tag(7, 0).uint32(1).tag(1, 2).bytes(bv.finish()).finish();
}

function framed(message: Uint8Array, compressed = 0): Buffer {
  const prefix = Buffer.alloc(5);
  prefix[0] = compressed;
  prefix.writeUInt32BE(message.length, 1);
  return Buffer.concat([prefix, Buffer.from(message)]);
}

type Answer = (stream: ServerHttp2Stream, path: string) => void;

/** A BuildKit-like gRPC server over mutual TLS that answers every call with `answer`; records the paths asked. */
async function server(answer: Answer): Promise<{port: number; paths: string[]; contentTypes: string[]}> {
  const paths: string[] = [];
  const contentTypes: string[] = [];
  const srv: Http2Server = createSecureServer({
    cert: pki.server.cert,
    key: pki.server.key,
    ca: pki.ca.cert,
    requestCert: true,
    rejectUnauthorized: true
  }) as unknown as Http2Server;
  srv.on('session', s => s.on('error', () => undefined));
  srv.on('stream', (stream, headers) => {
    stream.on('error', () => undefined);
    const path = String(headers[':path']);
    paths.push(path);
    contentTypes.push(String(headers['content-type']));
    stream.resume();
    stream.on('end', () => answer(stream, path));
  });
  await new Promise<void>(resolve => srv.listen(0, '127.0.0.1', () => resolve()));
  cleanups.push(() => new Promise<void>(resolve => srv.close(() => resolve())));
  return {port: (srv.address() as AddressInfo).port, paths, contentTypes};
}

const ok =
  (version: string): Answer =>
  stream => {
    stream.respond({':status': 200, 'content-type': 'application/grpc'}, {waitForTrailers: true});
    stream.on('wantTrailers', () => stream.sendTrailers({'grpc-status': '0'}));
    stream.end(framed(infoResponse(version)));
  };

function opts(port: number, more: Partial<Parameters<typeof grpcBuildkitInfo>[0]> = {}) {
  return {
    hostname: '127.0.0.1',
    port,
    pems: {ca: pki.ca.cert, cert: pki.client.cert, key: pki.client.key},
    timeoutMs: 10_000,
    ...more
  };
}

describe('grpcBuildkitInfo', () => {
  test('asks Control/Info over mutual TLS and reads the version', async () => {
    const s = await server(ok('v0.13.2'));
    await expect(grpcBuildkitInfo(opts(s.port))).resolves.toEqual({version: 'v0.13.2', proved: true});
    expect(s.paths).toEqual(['/moby.buildkit.v1.Control/Info']);
    expect(s.contentTypes).toEqual(['application/grpc']);
  });

  test.each<[string, Answer, RegExp]>([
    [
      'UNIMPLEMENTED (BuildKit < 0.11), trailers-only',
      stream => {
        stream.respond(
          {':status': 200, 'content-type': 'application/grpc', 'grpc-status': '12', 'grpc-message': 'unknown%20method'},
          {endStream: true}
        );
      },
      /gRPC status 12 \(unknown method\)/
    ],
    ['an HTTP 502 from a front', stream => stream.respond({':status': 502}, {endStream: true}), /HTTP status 502/],
    [
      'a compressed message',
      stream => {
        stream.respond({':status': 200, 'content-type': 'application/grpc'}, {waitForTrailers: true});
        stream.on('wantTrailers', () => stream.sendTrailers({'grpc-status': '0'}));
        stream.end(framed(infoResponse('v0.13.2'), 1));
      },
      /compressed/
    ],
    [
      'an answer without grpc-status',
      stream => {
        stream.respond({':status': 200, 'content-type': 'application/grpc'});
        stream.end(framed(infoResponse('v0.13.2')));
      },
      /no grpc-status/
    ],
    ['a reset stream', stream => stream.close(2), /Control\/Info/]
  ])('%s → a reason, not a version; the builder still proved it speaks HTTP/2', async (_what, answer, why) => {
    const s = await server(answer);
    const info = await grpcBuildkitInfo(opts(s.port));
    expect(info.version).toBeUndefined();
    expect('why' in info && info.why).toMatch(why);
    // What readiness's probe accepts too: the server's SETTINGS over mutual TLS.
    expect(info.proved).toBe(true);
  });

  test('a client certificate the builder does not trust → a reason', async () => {
    const other = await makePki('other');
    const s = await server(ok('v0.13.2'));
    const info = await grpcBuildkitInfo(
      opts(s.port, {pems: {ca: pki.ca.cert, cert: other.client.cert, key: other.client.key}})
    );
    expect(info.version).toBeUndefined();
    expect(info.proved).toBe(false);
    expect(s.paths).toEqual([]);
  });

  test('a server certificate from another CA → a reason, nothing proved', async () => {
    const other = await makePki('other');
    const s = await server(ok('v0.13.2'));
    const info = await grpcBuildkitInfo(
      opts(s.port, {pems: {ca: other.ca.cert, cert: pki.client.cert, key: pki.client.key}})
    );
    expect(info).toEqual({why: expect.stringMatching(/Control\/Info/), proved: false});
    expect(s.paths).toEqual([]);
  });

  test('no answer: the time limit on the clock ends the call with a reason', async () => {
    const clock = new FakeClock();
    const s = await server(() => undefined);
    const pending = grpcBuildkitInfo(opts(s.port, {clock, timeoutMs: 500}));
    // The limit is the clock's: it ends only once the clock passes it, after the call reached the server.
    while (s.paths.length === 0) await new Promise(resolve => setImmediate(resolve));
    clock.advance(500);
    // (Whether the server's SETTINGS were read by then is not this test's business.)
    await expect(pending).resolves.toMatchObject({why: expect.stringMatching(/no answer within 500 ms/)});
  });

  test('a cancelled step ends the call', async () => {
    const s = await server(() => undefined);
    const controller = new AbortController();
    const pending = grpcBuildkitInfo(opts(s.port, {signal: controller.signal}));
    while (s.paths.length === 0) await new Promise(resolve => setImmediate(resolve));
    controller.abort(new Error('cancelled'));
    await expect(pending).resolves.toMatchObject({why: expect.stringMatching(/cancelled/)});
  });
});

describe('readInfoResponse / grpcMessages', () => {
  test.each<[string, Uint8Array, string | RegExp]>([
    ['version among unknown fields', infoResponse('v0.26.0-rc1'), 'v0.26.0-rc1'],
    ['an empty InfoResponse', new Uint8Array(), /without a BuildKit version/],
    ['a BuildkitVersion without version', new BinaryWriter().tag(1, 2).bytes(new Uint8Array()).finish(), /without/]
  ])('%s', (_what, bytes, expected) => {
    if (typeof expected === 'string') expect(readInfoResponse(bytes)).toBe(expected);
    else expect(() => readInfoResponse(bytes)).toThrow(expected);
  });

  test('a truncated message is refused', () => {
    expect(() => grpcMessages(framed(infoResponse('v1')).subarray(0, 8))).toThrow(/truncated/);
  });
});
