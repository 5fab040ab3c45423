import {afterEach, beforeAll, describe, expect, test} from '@jest/globals';
import {createServer as createNetServer, type AddressInfo, type Server, type Socket} from 'node:net';
import {createServer as createTlsServer, type TLSSocket} from 'node:tls';
import {mutualTlsProbe, TlsProbeError} from '../../src/lifecycle/tls-probe.js';
import {makeCa, makeLeaf, makePki, type TestLeaf, type TestPki} from '../fakes/test-pki.js';

let pki: TestPki;
let otherCa: {cert: string};
let strangerClient: TestLeaf;

beforeAll(async () => {
  pki = await makePki('probe');
  const other = await makeCa('other CA');
  otherCa = other;
  strangerClient = await makeLeaf(other, 'client', 'stranger');
});

const open: {server: Server; sockets: Set<Socket>}[] = [];
afterEach(async () => {
  for (const {server, sockets} of open.splice(0)) {
    for (const s of sockets) s.destroy();
    await new Promise<void>(resolve => server.close(() => resolve()));
  }
});

async function listen(server: Server): Promise<{port: number; sockets: Set<Socket>}> {
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', () => resolve()));
  open.push({server, sockets});
  return {port: (server.address() as AddressInfo).port, sockets};
}

/** A BuildKit-like server: TLS, client certificate required and checked against the test CA. */
async function mtlsServer(
  maxVersion: 'TLSv1.2' | 'TLSv1.3' = 'TLSv1.3'
): Promise<{port: number; alpn: (string | false | null)[]; handshakes: () => number}> {
  const alpn: (string | false | null)[] = [];
  let handshakes = 0;
  const server = createTlsServer(
    {
      cert: pki.server.cert,
      key: pki.server.key,
      ca: pki.ca.cert,
      requestCert: true,
      rejectUnauthorized: true,
      maxVersion,
      ALPNProtocols: ['h2']
    },
    (s: TLSSocket) => {
      handshakes++;
      alpn.push(s.alpnProtocol);
    }
  );
  server.on('tlsClientError', () => undefined);
  const {port} = await listen(server);
  return {port, alpn, handshakes: () => handshakes};
}

async function probeError(p: Promise<void>): Promise<TlsProbeError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err
  );
  expect(e).toBeInstanceOf(TlsProbeError);
  return e as TlsProbeError;
}

const goodPems = () => ({ca: pki.ca.cert, cert: pki.client.cert, key: pki.client.key});

describe('mutualTlsProbe', () => {
  test('succeeds against a server that accepts our client certificate, offering ALPN h2', async () => {
    const server = await mtlsServer();
    await expect(
      mutualTlsProbe({hostname: '127.0.0.1', port: server.port, pems: goodPems(), timeoutMs: 5000})
    ).resolves.toBeUndefined();
    expect(server.handshakes()).toBe(1);
    expect(server.alpn).toEqual(['h2']);
  });

  test('TLS 1.2: succeeds once the handshake completes', async () => {
    const server = await mtlsServer('TLSv1.2');
    await expect(
      mutualTlsProbe({hostname: '127.0.0.1', port: server.port, pems: goodPems(), timeoutMs: 5000})
    ).resolves.toBeUndefined();
    expect(server.handshakes()).toBe(1);
  });

  test('a server certificate from another CA → rejected', async () => {
    const server = await mtlsServer();
    const e = await probeError(
      mutualTlsProbe({
        hostname: '127.0.0.1',
        port: server.port,
        pems: {...goodPems(), ca: otherCa.cert},
        timeoutMs: 5000
      })
    );
    expect(e.kind).toBe('rejected');
    expect(e.message).toMatch(new RegExp(`^the mutual-TLS handshake with 127\\.0\\.0\\.1:${server.port} failed: `));
    expect(server.handshakes()).toBe(0);
  });

  test('a client certificate the server does not trust → rejected', async () => {
    const server = await mtlsServer();
    const e = await probeError(
      mutualTlsProbe({
        hostname: '127.0.0.1',
        port: server.port,
        pems: {ca: pki.ca.cert, cert: strangerClient.cert, key: strangerClient.key},
        timeoutMs: 5000
      })
    );
    expect(e.kind).toBe('rejected');
    expect(e.message).toMatch(new RegExp(`127\\.0\\.0\\.1:${server.port}`));
    expect(server.handshakes()).toBe(0);
  });

  test('a closed port → unreachable (ECONNREFUSED)', async () => {
    const server = createNetServer();
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', () => resolve()));
    const port = (server.address() as AddressInfo).port;
    await new Promise<void>(resolve => server.close(() => resolve()));
    const e = await probeError(mutualTlsProbe({hostname: '127.0.0.1', port, pems: goodPems(), timeoutMs: 5000}));
    expect(e.kind).toBe('unreachable');
    expect(e.code).toBe('ECONNREFUSED');
    expect(e.message).toBe(`nothing accepts TLS connections at 127.0.0.1:${port} yet (ECONNREFUSED)`);
  });

  test('a server that accepts TCP and closes at once → unreachable (the builder is still booting)', async () => {
    const {port} = await listen(createNetServer(s => s.destroy()));
    const e = await probeError(mutualTlsProbe({hostname: '127.0.0.1', port, pems: goodPems(), timeoutMs: 5000}));
    expect(e.kind).toBe('unreachable');
    expect(e.code).toBe('ECONNRESET');
  });

  test('a server that never answers the handshake → timeout after timeoutMs', async () => {
    // Reads (and ignores) the ClientHello, so it notices when the probe hangs up.
    const {port, sockets} = await listen(createNetServer(s => s.resume()));
    const started = Date.now();
    const e = await probeError(mutualTlsProbe({hostname: '127.0.0.1', port, pems: goodPems(), timeoutMs: 200}));
    expect(e.kind).toBe('timeout');
    expect(e.message).toBe(`no TLS handshake with 127.0.0.1:${port} within 200 ms`);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect(Date.now() - started).toBeLessThan(2000);
    // The probe closed its socket.
    await new Promise(resolve => setTimeout(resolve, 50));
    expect(sockets.size).toBe(0);
  });

  test('aborting during the handshake → aborted, at once', async () => {
    const {port} = await listen(createNetServer(() => undefined));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const started = Date.now();
    const e = await probeError(
      mutualTlsProbe({hostname: '127.0.0.1', port, pems: goodPems(), timeoutMs: 10000, signal: controller.signal})
    );
    expect(e.kind).toBe('aborted');
    expect(e.message).toBe(`TLS check of 127.0.0.1:${port} was cancelled`);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  test('an already aborted signal → aborted without connecting', async () => {
    let connections = 0;
    const {port} = await listen(
      createNetServer(() => {
        connections++;
      })
    );
    const e = await probeError(
      mutualTlsProbe({hostname: '127.0.0.1', port, pems: goodPems(), timeoutMs: 10000, signal: AbortSignal.abort()})
    );
    expect(e.kind).toBe('aborted');
    await new Promise(resolve => setTimeout(resolve, 50));
    expect(connections).toBe(0);
  });

  // prettier-ignore
  test.each<[number, string, () => {ca: string; cert: string; key: string}]>([
    [1, 'a key that is not a key', () => ({...goodPems(), key: '-----BEGIN PRIVATE KEY-----\nbm9wZQ==\n-----END PRIVATE KEY-----\n'})],
    [2, 'a key that does not match the certificate', () => ({...goodPems(), key: strangerClient.key})],
    [3, 'a CA that is not a certificate', () => ({...goodPems(), ca: '-----BEGIN CERTIFICATE-----\nbm9wZQ==\n-----END CERTIFICATE-----\n'})]
  ])('[%d] %s → rejects with a TlsProbeError of kind rejected, not a plain Error', async (_n, _what, pems) => {
    const server = await mtlsServer();
    const e = await mutualTlsProbe({hostname: '127.0.0.1', port: server.port, pems: pems(), timeoutMs: 5000}).then(
      () => undefined,
      (err: unknown) => err
    );
    expect(e).toMatchObject({name: 'TlsProbeError', kind: 'rejected'});
    expect(server.handshakes()).toBe(0);
  });
});
