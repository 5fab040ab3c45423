import {afterAll, afterEach, beforeAll, describe, expect, test} from '@jest/globals';
import net from 'node:net';
import type {Duplex} from 'node:stream';
import tls from 'node:tls';
import {BuilderEndpoint, type BuilderEndpointOpts, TLS_ALERTS} from '../src/builder-endpoint.js';
import {type BuildkitBackend, HandshakeOnlyBackend} from '../src/buildkit-backend.js';
import {ManualClock} from '../src/clock.js';
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

/** A backend that echoes what it receives and records it, per connection. */
class EchoBackend implements BuildkitBackend {
  readonly kind = 'echo';
  readonly received: string[] = [];
  readonly clients: Duplex[] = [];

  serve(client: Duplex): void {
    const i = this.clients.push(client) - 1;
    this.received[i] = '';
    client.on('error', () => client.destroy());
    client.on('data', (chunk: Buffer) => {
      this.received[i] += chunk.toString();
      client.write(chunk);
    });
    client.on('end', () => client.end());
  }
}

const extra: BuilderEndpoint[] = [];
afterEach(async () => {
  await Promise.all(extra.splice(0).map(e => e.close()));
});

async function start(opts: Partial<BuilderEndpointOpts> = {}): Promise<BuilderEndpoint> {
  const ep = await BuilderEndpoint.listen({
    serverCert: pki.serverCert,
    serverKey: pki.serverKey,
    caCert: pki.caCert,
    backend: new HandshakeOnlyBackend(),
    ...opts
  });
  extra.push(ep);
  return ep;
}

/** A client's view of one connection: its events in order ('secure', 'session', 'data:…', 'end', 'error:CODE', 'close'). */
interface Client {
  socket: tls.TLSSocket;
  events: string[];
  closed: Promise<void>;
  /** Resolves once `event` was seen. */
  saw(event: string): Promise<void>;
}

function connect(port: number, opts: {maxVersion?: tls.SecureVersion; cert?: string; key?: string} = {}): Client {
  const socket = tls.connect({
    host: '127.0.0.1',
    port,
    ca: pki.caCert,
    cert: opts.cert ?? pki.clientCert,
    key: opts.key ?? pki.clientKey,
    ALPNProtocols: ['h2'],
    ...(opts.maxVersion ? {maxVersion: opts.maxVersion} : {})
  });
  const events: string[] = [];
  const waiters: {event: string; resolve: () => void}[] = [];
  const record = (event: string): void => {
    events.push(event);
    for (const w of waiters.filter(x => event.startsWith(x.event))) w.resolve();
  };
  socket.on('secureConnect', () => record('secure'));
  socket.on('session', () => record('session'));
  socket.on('data', (c: Buffer) => record(`data:${c.toString()}`));
  socket.on('end', () => record('end'));
  socket.on('error', (e: NodeJS.ErrnoException) => {
    const alert = /SSL alert number (\d+)/.exec(e.message)?.[1];
    record(`error:${alert ? `alert ${alert}` : e.code}`);
  });
  const closed = new Promise<void>(resolve => socket.on('close', () => (record('close'), resolve())));
  return {
    socket,
    events,
    closed,
    saw: event =>
      events.some(e => e.startsWith(event)) ? Promise.resolve() : new Promise(resolve => waiters.push({event, resolve}))
  };
}

/**
 * A TCP relay in front of `port`, reading the endpoint's side in JavaScript: `upstream` records how that
 * side ended ('end' for a FIN, 'error:ECONNRESET' for a reset).
 */
async function relay(port: number): Promise<{port: number; upstream: string[]; closed: Promise<void>}> {
  const upstream: string[] = [];
  let done: () => void = () => undefined;
  const closed = new Promise<void>(resolve => (done = resolve));
  const server = net.createServer(client => {
    server.close();
    const up = net.connect({host: '127.0.0.1', port});
    client.pipe(up);
    up.pipe(client);
    up.on('end', () => upstream.push('end'));
    up.on('error', (e: NodeJS.ErrnoException) => upstream.push(`error:${e.code}`));
    up.on('close', () => {
      client.destroy();
      done();
    });
    client.on('error', () => up.destroy());
    client.on('close', () => up.destroy());
  });
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', () => resolve()));
  return {port: (server.address() as net.AddressInfo).port, upstream, closed};
}

/**
 * Lets the event loop run `ms`: for checks that something does NOT happen while the endpoint is silent, which
 * has no event to wait for instead (a broken endpoint fails them; a slow one could pass them).
 */
const quiet = (ms = 100): Promise<void> => new Promise(resolve => setTimeout(resolve, ms));

describe.each<tls.SecureVersion>(['TLSv1.3', 'TLSv1.2'])('BuilderEndpoint fronts over %s', maxVersion => {
  test('close-after-handshake: the handshake completes, then a clean close (no error)', async () => {
    const ep = await start({front: 'close-after-handshake'});
    const c = connect(ep.port, {maxVersion});
    await c.closed;
    expect(c.events.filter(e => e !== 'session')).toEqual(['secure', 'end', 'close']);
    expect(ep.acceptedConnections).toBe(1);
  });

  test('reset-after-handshake: the handshake completes, then the connection is reset', async () => {
    const ep = await start({front: 'reset-after-handshake'});
    for (let i = 0; i < 10; i++) {
      // Node's TLS client reports a reset after the handshake as an end: the relay sees the TCP truth.
      const r = await relay(ep.port);
      const c = connect(r.port, {maxVersion});
      await c.closed;
      await r.closed;
      expect(c.events[0]).toBe('secure');
      expect(c.events.filter(e => e.startsWith('data:'))).toEqual([]);
      // TLS 1.3 resets a connection with nothing in flight. TLS 1.2 resets 50 ms after the server Finished,
      // which a stalled event loop could still be holding unread (then the reset reads as a close).
      if (maxVersion === 'TLSv1.3') expect(r.upstream).toEqual(['error:ECONNRESET']);
    }
    expect(ep.acceptedConnections).toBe(10);
  });

  test('close-after-handshake closes with a FIN, not a reset', async () => {
    const ep = await start({front: 'close-after-handshake'});
    const r = await relay(ep.port);
    const c = connect(r.port, {maxVersion});
    await c.closed;
    await r.closed;
    // (An EPIPE may follow: the relay still passes on the client's own close.)
    expect(r.upstream[0]).toBe('end');
    expect(r.upstream).not.toContain('error:ECONNRESET');
  });

  test('refuse-client-cert: answers our certificate with an unknown-CA alert (TLS 1.3: after our handshake)', async () => {
    const backend = new EchoBackend();
    const ep = await start({front: 'refuse-client-cert', backend});
    for (let i = 0; i < 10; i++) {
      const c = connect(ep.port, {maxVersion});
      await c.closed;
      // TLS 1.3: the server judges our certificate after our side of the handshake is done.
      const secure = maxVersion === 'TLSv1.3' ? ['secure'] : [];
      expect(c.events.slice(0, secure.length + 1)).toEqual([...secure, `error:alert ${TLS_ALERTS.unknownCa}`]);
      expect(c.events.filter(e => e === 'session' || e.startsWith('data:'))).toEqual([]);
    }
    expect(ep.rejectedHandshakes).toBe(10);
    expect(ep.acceptedConnections).toBe(0);
    expect(backend.clients).toEqual([]);
  });

  test('refuse-client-cert sends the alert it is given', async () => {
    const ep = await start({front: 'refuse-client-cert', refusalAlert: TLS_ALERTS.badCertificate});
    const c = connect(ep.port, {maxVersion});
    await c.closed;
    expect(c.events).toContain(`error:alert ${TLS_ALERTS.badCertificate}`);
  });

  test('close-idle: a connection silent for idleMs after the handshake is closed cleanly', async () => {
    const clock = new ManualClock();
    const backend = new EchoBackend();
    const ep = await start({front: 'close-idle', idleMs: 500, clock, backend});
    const c = connect(ep.port, {maxVersion});
    await c.saw('secure');
    await waitFor(() => ep.openConnections === 1);
    // The idle timer is the only one on this clock: still armed at 499 ms, fired (the close) at 500.
    expect(clock.pendingTimers()).toBe(1);
    clock.advance(499);
    expect(clock.pendingTimers()).toBe(1);
    clock.advance(1);
    expect(clock.pendingTimers()).toBe(0);
    await c.closed;
    expect(c.events.filter(e => e !== 'session')).toEqual(['secure', 'end', 'close']);
    expect(backend.clients).toEqual([]);
  });

  test('close-idle: a connection that talks in time is served normally, its first bytes intact', async () => {
    const clock = new ManualClock();
    const backend = new EchoBackend();
    const ep = await start({front: 'close-idle', idleMs: 500, clock, backend});
    const c = connect(ep.port, {maxVersion});
    await c.saw('secure');
    c.socket.write('hello');
    await c.saw('data:hello');
    clock.advance(10_000);
    c.socket.write(' world');
    await waitFor(() => backend.received[0] === 'hello world');
    expect(c.events).not.toContain('end');
    c.socket.end();
    await c.closed;
  });
});

const H2_CLIENT_PREFACE = Buffer.concat([
  Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1'),
  Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0])
]);

describe.each<tls.SecureVersion>(['TLSv1.3', 'TLSv1.2'])('BuilderEndpoint and HTTP/2 over %s', maxVersion => {
  test('keep-open with the handshake-only backend: the client preface is answered with an empty SETTINGS frame', async () => {
    const ep = await start();
    const c = connect(ep.port, {maxVersion});
    const received: Buffer[] = [];
    c.socket.on('data', (chunk: Buffer) => received.push(chunk));
    await c.saw('secure');
    // In two pieces: the backend waits for the whole preface.
    c.socket.write(H2_CLIENT_PREFACE.subarray(0, 10));
    await quiet(20);
    c.socket.write(H2_CLIENT_PREFACE.subarray(10));
    await c.saw('data:');
    c.socket.end();
    await c.closed;
    // All the endpoint sent in the connection's whole life.
    expect(Buffer.concat(received)).toEqual(Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0]));
  });

  test('drop-client-cert: refuses our certificate by closing, without an alert; counted as refused, never served', async () => {
    const backend = new EchoBackend();
    const ep = await start({front: 'drop-client-cert', backend});
    for (let i = 0; i < 10; i++) {
      const c = connect(ep.port, {maxVersion});
      c.socket.once('secureConnect', () => c.socket.write(H2_CLIENT_PREFACE));
      await c.closed;
      // TLS 1.3: our side of the handshake completed before the server judged our certificate.
      if (maxVersion === 'TLSv1.3') expect(c.events[0]).toBe('secure');
      expect(c.events.filter(e => e.startsWith('error:alert') || e.startsWith('data:'))).toEqual([]);
      expect(c.events).toContain('close');
    }
    expect(ep.rejectedHandshakes).toBe(10);
    expect(ep.acceptedConnections).toBe(0);
    expect(backend.clients).toEqual([]);
  });

  test('no-http2: the handshake completes and the connection stays open, but the preface gets no answer', async () => {
    const backend = new EchoBackend();
    const ep = await start({front: 'no-http2', backend});
    const c = connect(ep.port, {maxVersion});
    await c.saw('secure');
    c.socket.write(H2_CLIENT_PREFACE);
    await waitFor(() => ep.openConnections === 1);
    // Open until we end it: then it ends in turn, and in its whole life no byte came back.
    c.socket.end();
    await c.closed;
    expect(c.events.filter(e => e !== 'session')).toEqual(['secure', 'end', 'close']);
    expect(backend.clients).toEqual([]);
    await waitFor(() => ep.openConnections === 0);
  });
});

describe('BuilderEndpoint never-answer front', () => {
  test('accepts the TCP connection, reads, and never speaks TLS', async () => {
    const ep = await start({front: 'never-answer'});
    const socket = net.connect({host: '127.0.0.1', port: ep.port});
    const received: Buffer[] = [];
    socket.on('data', c => received.push(c));
    await new Promise(resolve => socket.once('connect', resolve));
    // A ClientHello's worth of bytes, then our end: the front reads them and closes in turn, silently.
    socket.end(Buffer.alloc(512, 0x16));
    await new Promise(resolve => socket.once('close', resolve));
    expect(received).toEqual([]);
    expect(ep.acceptedConnections + ep.rejectedHandshakes).toBe(0);
  });

  test('a TLS client waits in vain: when it gives up, the connection closes without a handshake or a byte', async () => {
    const ep = await start({front: 'never-answer'});
    const c = connect(ep.port);
    // TCP connected: the ClientHello is on its way (the TLS socket sends it on connect, before this listener).
    await new Promise(resolve => c.socket.once('connect', resolve));
    c.socket.end();
    await c.closed;
    expect(c.events.filter(e => e === 'secure' || e === 'session' || e.startsWith('data:'))).toEqual([]);
    expect(c.events.at(-1)).toBe('close');
    expect(ep.acceptedConnections + ep.rejectedHandshakes).toBe(0);
  });
});

describe('BuilderEndpoint modes', () => {
  test('silent: open connections stay open but nothing flows either way; normal: what was held flows', async () => {
    const backend = new EchoBackend();
    const ep = await start({backend});
    const c = connect(ep.port);
    await c.saw('secure');
    c.socket.write('one');
    await c.saw('data:one');

    ep.setMode('silent');
    expect(ep.mode).toBe('silent');
    c.socket.write('two');
    backend.clients[0]?.write('from the builder');
    await quiet();
    expect(backend.received).toEqual(['one']);
    expect(c.events.filter(e => e.startsWith('data:'))).toEqual(['data:one']);
    expect(c.events).not.toContain('close');

    ep.setMode('normal');
    await waitFor(() => backend.received[0] === 'onetwo');
    await waitFor(() => c.events.join('').includes('from the builder') && c.events.join('').includes('two'));
    c.socket.end();
    await c.closed;
  });

  test('silent: a new connection is accepted at TCP level and never answered until normal', async () => {
    const ep = await start();
    ep.setMode('silent');
    const c = connect(ep.port);
    await new Promise(resolve => c.socket.once('connect', resolve));
    await quiet();
    expect(c.events).toEqual([]);
    ep.setMode('normal');
    await c.saw('secure');
    c.socket.end();
    await c.closed;
  });

  test('kill: open connections are destroyed, new ones refused, the change is final', async () => {
    const ep = await start();
    const c = connect(ep.port);
    await c.saw('secure');
    await waitFor(() => ep.openConnections === 1);
    ep.setMode('kill');
    await c.closed;
    expect(ep.openConnections).toBe(0);
    expect(
      await handshake({host: `127.0.0.1:${ep.port}`, ca: pki.caCert, cert: pki.clientCert, key: pki.clientKey})
    ).toEqual({ok: false, error: 'ECONNREFUSED'});
    expect(() => ep.setMode('normal')).toThrow('The endpoint was killed; it cannot become normal');
    expect(() => ep.setMode('silent')).toThrow(/was killed/);
    expect(() => ep.setMode('kill')).not.toThrow();
    await ep.close();
  });

  test('kill from silent also destroys the connections it holds', async () => {
    const ep = await start();
    ep.setMode('silent');
    const c = connect(ep.port);
    await new Promise(resolve => c.socket.once('connect', resolve));
    ep.setMode('kill');
    await c.closed;
    expect(c.events).not.toContain('secure');
  });

  test('mode changes: normal from normal is a no-op, unknown modes and closed endpoints throw', async () => {
    const ep = await start();
    expect(() => ep.setMode('normal')).not.toThrow();
    expect(() => ep.setMode('loud' as never)).toThrow('Unknown endpoint mode "loud"');
    await ep.close();
    expect(() => ep.setMode('silent')).toThrow('The endpoint is closed; it cannot become silent');
  });
});
