import {afterAll, beforeAll, describe, expect, test} from '@jest/globals';
import tls from 'node:tls';
import {BuilderEndpoint} from '../src/builder-endpoint.js';
import {HandshakeOnlyBackend} from '../src/buildkit-backend.js';
import {type BuilderPki, generateBuilderPki} from '../src/pki.js';
import {handshake, waitFor} from './support.js';

let pki: BuilderPki;
let other: BuilderPki;
let endpoint: BuilderEndpoint;
const counts: number[] = [];

beforeAll(async () => {
  [pki, other] = await Promise.all([generateBuilderPki({label: 'a'}), generateBuilderPki({label: 'b'})]);
  endpoint = await BuilderEndpoint.listen({
    serverCert: pki.serverCert,
    serverKey: pki.serverKey,
    caCert: pki.caCert,
    backend: new HandshakeOnlyBackend(),
    onConnectionCountChange: n => counts.push(n)
  });
});
afterAll(() => endpoint.close());

/**
 * Resolves once the server accepted the client certificate (its TLS 1.3 session ticket arrived). Continues
 * on a later macrotask: writing from inside node's 'session' callback corrupts the TLS record stream.
 */
function accepted(socket: tls.TLSSocket): Promise<void> {
  return new Promise(resolve => socket.once('session', () => setImmediate(resolve)));
}

const host = (): string => `127.0.0.1:${endpoint.port}`;

describe('BuilderEndpoint mutual TLS', () => {
  test('accepts the builder client certificate and negotiates h2', async () => {
    const r = await handshake({host: host(), ca: pki.caCert, cert: pki.clientCert, key: pki.clientKey});
    expect(r).toEqual({ok: true, alpn: 'h2'});
  });

  test('accepts clients that send no ALPN or http/1.1', async () => {
    const r = await handshake({host: host(), ca: pki.caCert, cert: pki.clientCert, key: pki.clientKey, alpn: []});
    expect(r.ok).toBe(true);
    const r2 = await handshake({
      host: host(),
      ca: pki.caCert,
      cert: pki.clientCert,
      key: pki.clientKey,
      alpn: ['http/1.1']
    });
    expect(r2).toEqual({ok: true, alpn: 'http/1.1'});
  });

  test('rejects a client without a certificate', async () => {
    const r = await handshake({host: host(), ca: pki.caCert});
    expect(r.ok).toBe(false);
  });

  test("rejects another builder's client certificate", async () => {
    const r = await handshake({host: host(), ca: pki.caCert, cert: other.clientCert, key: other.clientKey});
    expect(r.ok).toBe(false);
    expect(endpoint.rejectedHandshakes).toBeGreaterThan(0);
  });

  test('the client refuses the server when it trusts another CA', async () => {
    const r = await handshake({host: host(), ca: other.caCert, cert: pki.clientCert, key: pki.clientKey});
    expect(r.ok).toBe(false);
    expect(r.ok ? '' : r.error).toMatch(/SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE/);
  });
});

describe('BuilderEndpoint connections', () => {
  test('counts open connections and writes nothing on the handshake-only backend', async () => {
    counts.length = 0;
    const socket = tls.connect({
      host: '127.0.0.1',
      port: endpoint.port,
      ca: pki.caCert,
      cert: pki.clientCert,
      key: pki.clientKey
    });
    const received: Buffer[] = [];
    socket.on('data', c => received.push(c));
    await accepted(socket);
    await waitFor(() => endpoint.openConnections === 1);
    socket.write('hello');
    socket.end();
    await new Promise(r => socket.once('close', r));
    await waitFor(() => endpoint.openConnections === 0);
    expect(counts).toEqual([1, 0]);
    expect(received).toEqual([]);
  });

  test('close destroys open connections and stops listening', async () => {
    const ep = await BuilderEndpoint.listen({
      serverCert: pki.serverCert,
      serverKey: pki.serverKey,
      caCert: pki.caCert,
      backend: new HandshakeOnlyBackend()
    });
    const socket = tls.connect({
      host: '127.0.0.1',
      port: ep.port,
      ca: pki.caCert,
      cert: pki.clientCert,
      key: pki.clientKey
    });
    socket.on('error', () => undefined);
    await accepted(socket);
    const closedSocket = new Promise(r => socket.once('close', r));
    await ep.close();
    await closedSocket;
    const r = await handshake({host: `127.0.0.1:${ep.port}`, ca: pki.caCert, cert: pki.clientCert, key: pki.clientKey});
    expect(r).toEqual({ok: false, error: 'ECONNREFUSED'});
  });
});
