// The probe against real TLS servers on 127.0.0.1: node:http2 and plain node:tls servers, and the emulator's
// builder endpoint in each of its TLS fronts (the fronts real builders sit behind). Every verdict is checked
// many times under TLS 1.3 and TLS 1.2: it must not depend on which event happens to come first.
import {afterEach, beforeAll, describe, expect, test} from '@jest/globals';
import {
  connect as netConnect,
  createServer as createNetServer,
  type AddressInfo,
  type Server,
  type Socket
} from 'node:net';
import {createSecureServer} from 'node:http2';
import type {Duplex} from 'node:stream';
import {createServer as createTlsServer, type SecureVersion, type TLSSocket} from 'node:tls';
import {HandshakeOnlyBackend} from '@remote-builder-actions/emulator';
import {BuilderEndpoint, TLS_ALERTS, type EndpointFront} from '../../../emulator/src/builder-endpoint.js';
import {mutualTlsProbe, TlsProbeError, type TlsProbeOpts} from '../../src/lifecycle/tls-probe.js';
import {FakeClock} from '../fakes/fake-clock.js';
import {makeCa, makeLeaf, makePki, type TestCa, type TestLeaf, type TestPki} from '../fakes/test-pki.js';

/**
 * Probes per case, under each TLS version: enough that a verdict resting on event order or timing would show
 * over a few runs (each probe is a real handshake, ~12 ms of CPU: 50 rounds cost the suite 15 s).
 */
const ROUNDS = 10;
const VERSIONS: SecureVersion[] = ['TLSv1.3', 'TLSv1.2'];

let pki: TestPki;
let otherCa: TestCa;
let strangerClient: TestLeaf;

beforeAll(async () => {
  pki = await makePki('probe');
  otherCa = await makeCa('other CA');
  strangerClient = await makeLeaf(otherCa, 'client', 'stranger');
});

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function listen(server: Server): Promise<{port: number; sockets: Set<Socket>}> {
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', () => resolve()));
  cleanups.push(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>(resolve => server.close(() => resolve()));
  });
  return {port: (server.address() as AddressInfo).port, sockets};
}

/**
 * A BuildKit-like server: a real HTTP/2 server (node:http2) over TLS, client certificate required and checked
 * against the test CA, as a Node TLS server checks it: a certificate it does not trust is refused by closing
 * the connection after the handshake, without an alert.
 */
async function mtlsServer(
  maxVersion: SecureVersion = 'TLSv1.3'
): Promise<{port: number; alpn: (string | false | null)[]; handshakes: () => number; sessions: () => number}> {
  const alpn: (string | false | null)[] = [];
  let handshakes = 0;
  let sessions = 0;
  const server = createSecureServer({
    cert: pki.server.cert,
    key: pki.server.key,
    ca: pki.ca.cert,
    requestCert: true,
    rejectUnauthorized: true,
    maxVersion
  });
  server.on('secureConnection', (s: TLSSocket) => {
    handshakes++;
    alpn.push(s.alpnProtocol);
  });
  server.on('session', session => {
    sessions++;
    session.on('error', () => undefined);
  });
  server.on('tlsClientError', () => undefined);
  const {port} = await listen(server as unknown as Server);
  return {port, alpn, handshakes: () => handshakes, sessions: () => sessions};
}

/** A plain mutual-TLS server (no HTTP/2) that hands each accepted connection to `onSecure`. */
async function tlsOnlyServer(maxVersion: SecureVersion, onSecure: (s: TLSSocket) => void): Promise<{port: number}> {
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
      s.on('error', () => s.destroy());
      onSecure(s);
    }
  );
  server.on('tlsClientError', () => undefined);
  return listen(server);
}

/** The emulator's builder endpoint with the test PKI, behind `front`. */
async function endpoint(
  front: EndpointFront,
  maxVersion: SecureVersion,
  extra: {refusalAlert?: number; idleMs?: number} = {}
): Promise<BuilderEndpoint> {
  const ep = await BuilderEndpoint.listen({
    serverCert: pki.server.cert,
    serverKey: pki.server.key,
    caCert: pki.ca.cert,
    backend: new HandshakeOnlyBackend(),
    front,
    maxVersion,
    ...extra
  });
  cleanups.push(() => ep.close());
  return ep;
}

const goodPems = () => ({ca: pki.ca.cert, cert: pki.client.cert, key: pki.client.key});

// The time limit runs on a FakeClock that nothing moves unless a test does: no verdict depends on how fast
// a loaded machine completes a handshake.
const probeOpts = (port: number, more: Partial<TlsProbeOpts> = {}): TlsProbeOpts => ({
  hostname: '127.0.0.1',
  port,
  pems: goodPems(),
  timeoutMs: 5000,
  clock: new FakeClock(),
  ...more
});

/** How the probe reports a close after the handshake, before the server's HTTP/2 preface. */
const CLOSED_BEFORE_H2 = (port: number): RegExp =>
  new RegExp(
    `^closed: the builder at 127\\.0\\.0\\.1:${port} (completed the TLS handshake, then (closed the connection|reset the connection \\(ECONNRESET\\)) before answering HTTP/2 \\(no SETTINGS frame\\)|(closed the connection|reset the connection \\(ECONNRESET\\)) right after our client certificate, before the TLS handshake completed): a TLS front that refuses our client certificate closes like this, without an alert\\. Check that the builder trusts the CA that signed client_cert from the details`
  );

/** The kinds of `counts`' verdicts, each checked against its pattern, counted. */
function kinds(counts: Record<string, number>, patterns: Record<string, RegExp>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [v, n] of Object.entries(counts)) {
    const kind = Object.keys(patterns).find(k => (patterns[k] as RegExp).test(v)) ?? v;
    out[kind] = (out[kind] ?? 0) + n;
  }
  return out;
}

/** The probe's verdict: 'accepted', or the error's kind, side and message. */
async function verdict(opts: TlsProbeOpts): Promise<string> {
  return mutualTlsProbe(opts).then(
    () => 'accepted',
    (e: unknown) => {
      if (!(e instanceof TlsProbeError)) return `not a TlsProbeError: ${String(e)}`;
      return `${e.kind}${e.side ? `/${e.side}` : ''}: ${e.message}`;
    }
  );
}

/** Every verdict of `rounds` probes, one after the other, counted. */
async function verdicts(opts: () => TlsProbeOpts, rounds = ROUNDS): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (let i = 0; i < rounds; i++) {
    const v = await verdict(opts());
    counts[v] = (counts[v] ?? 0) + 1;
  }
  return counts;
}

async function probeError(p: Promise<void>): Promise<TlsProbeError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err
  );
  expect(e).toBeInstanceOf(TlsProbeError);
  return e as TlsProbeError;
}

describe.each(VERSIONS)('mutualTlsProbe over %s', maxVersion => {
  test('an HTTP/2 server that accepts our certificate → accepted every time, offering ALPN h2', async () => {
    const server = await mtlsServer(maxVersion);
    expect(await verdicts(() => probeOpts(server.port))).toEqual({accepted: ROUNDS});
    expect(server.handshakes()).toBe(ROUNDS);
    // node:http2 took our preface as an HTTP/2 client's: it opened a session for every probe.
    expect(server.sessions()).toBe(ROUNDS);
    expect(new Set(server.alpn)).toEqual(new Set(['h2']));
  });

  test('an HTTP/2 server that does not trust our certificate closes without an alert → closed, naming our certificate, every time', async () => {
    const server = await mtlsServer(maxVersion);
    const stranger = () =>
      probeOpts(server.port, {pems: {...goodPems(), cert: strangerClient.cert, key: strangerClient.key}});
    expect(kinds(await verdicts(stranger), {closed: CLOSED_BEFORE_H2(server.port)})).toEqual({closed: ROUNDS});
    expect(server.sessions()).toBe(0);
  });

  // The fronts of the emulator that serve a talking connection: the preface goes out at once, so a front
  // that closes idle connections sees this one talk and lets it through. (Its idle period is a margin for a
  // loaded machine: the preface is the first thing sent after the handshake, tested below.)
  test.each<EndpointFront>(['keep-open', 'close-idle'])('front %s → accepted every time', async front => {
    const ep = await endpoint(front, maxVersion, {idleMs: 1000});
    expect(await verdicts(() => probeOpts(ep.port))).toEqual({accepted: ROUNDS});
    expect(ep.acceptedConnections).toBe(ROUNDS);
  });

  // Fronts that close every connection after the handshake, whatever it sends: from the client, the same as a
  // front refusing our certificate without an alert, and a builder buildx could not use either.
  test.each<EndpointFront>(['drop-client-cert', 'close-after-handshake', 'reset-after-handshake'])(
    'front %s → closed (not ready yet), naming our client certificate, every time',
    async front => {
      const ep = await endpoint(front, maxVersion);
      expect(kinds(await verdicts(() => probeOpts(ep.port)), {closed: CLOSED_BEFORE_H2(ep.port)})).toEqual({
        closed: ROUNDS
      });
    }
  );

  test('TLS completes, nothing answers HTTP/2 (as the no-http2 front) → timeout at the time limit, saying so', async () => {
    // The time limit passes once our preface arrived, which proves our side of the handshake completed.
    let clock = new FakeClock();
    const {port} = await tlsOnlyServer(maxVersion, s => s.once('data', () => clock.advance(1000)));
    const opts = (): TlsProbeOpts => probeOpts(port, {timeoutMs: 1000, clock: (clock = new FakeClock())});
    expect(await verdicts(opts, 3)).toEqual({
      [`timeout: the builder at 127.0.0.1:${port} completed the TLS handshake but did not answer HTTP/2 within 1000 ms (no SETTINGS frame after our connection preface): nothing behind its TLS front speaks gRPC yet`]: 3
    });
  });

  test('a front that refuses our client certificate with an alert → rejected (client side) every time', async () => {
    const ep = await endpoint('refuse-client-cert', maxVersion);
    const port = ep.port;
    expect(await verdicts(() => probeOpts(port))).toEqual({
      [`rejected/client: the mutual-TLS handshake with 127.0.0.1:${port} failed: the builder refused our client certificate (alert: unknown CA)`]:
        ROUNDS
    });
    expect(ep.rejectedHandshakes).toBe(ROUNDS);
  });

  // prettier-ignore
  test.each<[number, number, string]>([
    [1, TLS_ALERTS.badCertificate, 'bad certificate'],
    [2, TLS_ALERTS.certificateExpired, 'certificate expired'],
    [3, TLS_ALERTS.certificateUnknown, 'certificate unknown'],
    [4, TLS_ALERTS.accessDenied, 'access denied'],
    [5, TLS_ALERTS.certificateRequired, 'certificate required']
  ])('[%d] certificate alert %d → rejected (client side), naming the alert', async (_n, alert, name) => {
    const ep = await endpoint('refuse-client-cert', maxVersion, {refusalAlert: alert});
    const e = await probeError(mutualTlsProbe(probeOpts(ep.port)));
    expect(e).toMatchObject({kind: 'rejected', side: 'client'});
    expect(e.message).toBe(
      `the mutual-TLS handshake with 127.0.0.1:${ep.port} failed: the builder refused our client certificate (alert: ${name})`
    );
    expect(await verdicts(() => probeOpts(ep.port), 3)).toEqual({[`rejected/client: ${e.message}`]: 3});
  });

  test('an alert that is not about a certificate (internal error) → unreachable: not up yet', async () => {
    const ep = await endpoint('refuse-client-cert', maxVersion, {refusalAlert: 80});
    expect(await verdicts(() => probeOpts(ep.port))).toEqual({
      [`unreachable: the builder at 127.0.0.1:${ep.port} answered the TLS handshake with an alert (internal error)`]:
        ROUNDS
    });
  });

  test('a server certificate from another CA → rejected (server side), naming the verification error', async () => {
    const server = await mtlsServer(maxVersion);
    const counts = await verdicts(() => probeOpts(server.port, {pems: {...goodPems(), ca: otherCa.cert}}));
    expect(Object.values(counts)).toEqual([ROUNDS]);
    const e = await probeError(mutualTlsProbe(probeOpts(server.port, {pems: {...goodPems(), ca: otherCa.cert}})));
    expect(e).toMatchObject({kind: 'rejected', side: 'server', code: expect.stringMatching(/^[A-Z_]+$/)});
    expect(e.message).toMatch(
      new RegExp(
        `^the mutual-TLS handshake with 127\\.0\\.0\\.1:${server.port} failed: the builder's server certificate does not match the CA/host from the details: .+ \\(${e.code}\\)$`
      )
    );
  });

  test('a server certificate for another host → rejected (server side), naming the host', async () => {
    const server = await mtlsServer(maxVersion);
    // Reaches 127.0.0.1 for a name the certificate does not carry (as through a proxy).
    const opts = (): TlsProbeOpts =>
      probeOpts(server.port, {hostname: 'builder.remote-builder.test', connect: async () => tcp(server.port)});
    const counts = await verdicts(opts);
    expect(Object.values(counts)).toEqual([ROUNDS]);
    const e = await probeError(mutualTlsProbe(opts()));
    expect(e).toMatchObject({kind: 'rejected', side: 'server', code: 'ERR_TLS_CERT_ALTNAME_INVALID'});
    expect(e.message).toMatch(
      /the builder's server certificate does not match the CA\/host from the details: Hostname\/IP does not match certificate's altnames: Host: builder\.remote-builder\.test\. is not in the cert's altnames/
    );
  });

  test('a server that resets the connection during the handshake → unreachable (ECONNRESET) every time', async () => {
    const {port} = await listen(createNetServer(s => s.once('data', () => s.resetAndDestroy())));
    expect(await verdicts(() => probeOpts(port))).toEqual({
      [`unreachable: the builder at 127.0.0.1:${port} closed the connection before the TLS handshake completed (ECONNRESET)`]:
        ROUNDS
    });
  });

  test('a server that closes cleanly during the handshake → unreachable every time', async () => {
    const {port} = await listen(createNetServer(s => s.once('data', () => s.end())));
    const counts = await verdicts(() => probeOpts(port));
    expect(Object.keys(counts)).toEqual([
      expect.stringMatching(`^unreachable: the builder at 127\\.0\\.0\\.1:${port} closed the connection before`)
    ]);
  });
});

describe.each(VERSIONS)('mutualTlsProbe over %s: what the server says after the handshake', maxVersion => {
  test('its preface in pieces (one byte per write) → accepted', async () => {
    const settings = Buffer.from([0, 0, 6, 4, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 100]);
    const {port} = await tlsOnlyServer(maxVersion, s => {
      s.once('data', () => {
        for (const byte of settings) s.write(Buffer.from([byte]));
      });
    });
    expect(await verdicts(() => probeOpts(port), 10)).toEqual({accepted: 10});
  });

  // prettier-ignore
  test.each<[number, string, Buffer, string]>([
    [1, 'an HTTP/1.1 answer', Buffer.from('HTTP/1.1 400 Bad Request\r\n\r\n'), 'an HTTP/1.x answer ("HTTP/1.1 400 Bad Request")'],
    [2, 'a GOAWAY first', Buffer.from([0, 0, 8, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]), 'bytes that are not an HTTP/2 server preface (first frame header: GOAWAY, length 8, flags 0, stream 0)'],
    [3, 'a SETTINGS ACK first', Buffer.from([0, 0, 0, 4, 1, 0, 0, 0, 0]), 'bytes that are not an HTTP/2 server preface (first frame header: SETTINGS, length 0, flags 1, stream 0)']
  ])('[%d] %s → not-h2, quoting it', async (_n, _what, answer, quoted) => {
    const {port} = await tlsOnlyServer(maxVersion, s => s.once('data', () => s.write(answer)));
    expect(await verdicts(() => probeOpts(port), 5)).toEqual({
      [`not-h2: the builder at 127.0.0.1:${port} completed the TLS handshake but answered our HTTP/2 connection preface with ${quoted}: it does not serve BuildKit's gRPC there`]: 5
    });
  });

  test('its preface, then a close at once (a front closing after the proof) → accepted', async () => {
    const {port} = await tlsOnlyServer(maxVersion, s =>
      s.once('data', () => s.end(Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0])))
    );
    expect(await verdicts(() => probeOpts(port), 10)).toEqual({accepted: 10});
  });

  test('the connection preface is the first thing it receives, right after the handshake', async () => {
    const firsts: string[] = [];
    const {port} = await tlsOnlyServer(maxVersion, s =>
      s.once('data', (chunk: Buffer) => {
        firsts.push(chunk.subarray(0, 24).toString('latin1'));
        s.write(Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0]));
      })
    );
    expect(await verdicts(() => probeOpts(port), 5)).toEqual({accepted: 5});
    expect(firsts).toEqual(Array(5).fill('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'));
  });
});

/** A plain TCP connection, the stream a `connect` function could hand over. */
function tcp(port: number): Promise<Duplex> {
  return new Promise((resolve, reject) => {
    const s = netConnect({host: '127.0.0.1', port}, () => resolve(s));
    s.once('error', reject);
  });
}

describe('mutualTlsProbe over a stream from `connect`', () => {
  test('TLS and HTTP/2 run over the stream it returns: accepted, refused and dropped alike', async () => {
    const open = await endpoint('keep-open', 'TLSv1.3');
    const refusing = await endpoint('refuse-client-cert', 'TLSv1.3');
    const dropping = await endpoint('drop-client-cert', 'TLSv1.2');
    const signals: (AbortSignal | undefined)[] = [];
    const via = (port: number) => (): TlsProbeOpts =>
      // The port in the options is not used to connect: only what `connect` returns.
      probeOpts(1, {
        connect: signal => {
          signals.push(signal);
          return tcp(port);
        }
      });
    expect(await verdicts(via(open.port))).toEqual({accepted: ROUNDS});
    expect(kinds(await verdicts(via(dropping.port)), {closed: CLOSED_BEFORE_H2(1)})).toEqual({closed: ROUNDS});
    expect(await verdicts(via(refusing.port))).toEqual({
      'rejected/client: the mutual-TLS handshake with 127.0.0.1:1 failed: the builder refused our client certificate (alert: unknown CA)':
        ROUNDS
    });
    expect(open.acceptedConnections).toBe(ROUNDS);
    expect(signals).toHaveLength(3 * ROUNDS);
    // Every probe is over: its signal is aborted, so nothing it opened lives on.
    expect(signals.every(s => s?.aborted)).toBe(true);
  });

  test('connect fails → unreachable, naming the error', async () => {
    const failing = Object.assign(new Error('proxy answered 502 Bad Gateway'), {code: 'EPROXY'});
    const e = await probeError(mutualTlsProbe(probeOpts(443, {connect: () => Promise.reject(failing)})));
    expect(e).toMatchObject({
      kind: 'unreachable',
      code: 'EPROXY',
      message: 'could not open a connection to 127.0.0.1:443: proxy answered 502 Bad Gateway'
    });
  });

  test('connect throws a TlsProbeError → rethrown as is', async () => {
    const own = new TlsProbeError('rejected', 'the proxy refused the tunnel for good', 'E407');
    const e = await probeError(
      mutualTlsProbe(
        probeOpts(443, {
          connect: () => {
            throw own;
          }
        })
      )
    );
    expect(e).toBe(own);
  });

  test('connect never settles → timeout, and its signal is aborted', async () => {
    let seen: AbortSignal | undefined;
    const clock = new FakeClock();
    const probe = mutualTlsProbe(
      probeOpts(443, {
        timeoutMs: 100,
        clock,
        connect: signal => {
          seen = signal;
          return new Promise<Duplex>(() => undefined);
        }
      })
    );
    clock.advance(100);
    const e = await probeError(probe);
    expect(e).toMatchObject({
      kind: 'timeout',
      message:
        'the builder at 127.0.0.1:443 never completed a TLS handshake within 100 ms (no connection was established)'
    });
    expect(seen?.aborted).toBe(true);
  });

  test('cancelled while connecting → aborted, and the stream it returns later is destroyed', async () => {
    const ep = await endpoint('keep-open', 'TLSv1.3');
    const controller = new AbortController();
    let release: () => void = () => undefined;
    const gate = new Promise<void>(resolve => (release = resolve));
    let stream: Duplex | undefined;
    const probe = mutualTlsProbe(
      probeOpts(1, {
        signal: controller.signal,
        connect: async () => {
          await gate;
          stream = await tcp(ep.port);
          return stream;
        }
      })
    );
    controller.abort();
    const e = await probeError(probe);
    expect(e.kind).toBe('aborted');
    release();
    await new Promise<void>(resolve => {
      const check = (): void => (stream?.destroyed ? resolve() : void setTimeout(check, 5));
      check();
    });
    expect(ep.acceptedConnections).toBe(0);
  });
});

describe('mutualTlsProbe: not up yet, cancelled, unusable material', () => {
  test('a closed port → unreachable (ECONNREFUSED)', async () => {
    const server = createNetServer();
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', () => resolve()));
    const port = (server.address() as AddressInfo).port;
    await new Promise<void>(resolve => server.close(() => resolve()));
    const e = await probeError(mutualTlsProbe(probeOpts(port)));
    expect(e.kind).toBe('unreachable');
    expect(e.code).toBe('ECONNREFUSED');
    expect(e.message).toBe(`nothing accepts TLS connections at 127.0.0.1:${port} yet (ECONNREFUSED)`);
  });

  test('a server that accepts TCP and closes at once → unreachable (the builder is still booting)', async () => {
    const {port} = await listen(createNetServer(s => s.destroy()));
    const e = await probeError(mutualTlsProbe(probeOpts(port)));
    expect(e.kind).toBe('unreachable');
    expect(e.code).toBe('ECONNRESET');
  });

  test('a plain TCP server that answers with something else than TLS → unreachable', async () => {
    const {port} = await listen(createNetServer(s => s.end('HTTP/1.1 400 Bad Request\r\n\r\n')));
    const e = await probeError(mutualTlsProbe(probeOpts(port)));
    expect(e.kind).toBe('unreachable');
  });

  test('a server that never answers the handshake → timeout after timeoutMs, and the socket is closed', async () => {
    // Reads (and ignores) the ClientHello, so it notices when the probe hangs up; the time limit passes once
    // the ClientHello arrived (the connection was accepted).
    const clock = new FakeClock();
    const {port, sockets} = await listen(createNetServer(s => s.once('data', () => clock.advance(200)).resume()));
    const e = await probeError(mutualTlsProbe(probeOpts(port, {timeoutMs: 200, clock})));
    expect(e.kind).toBe('timeout');
    expect(e.message).toBe(
      `the builder at 127.0.0.1:${port} never completed a TLS handshake within 200 ms (it accepted the connection)`
    );
    await new Promise<void>(resolve => {
      const check = (): void => (sockets.size === 0 ? resolve() : void setTimeout(check, 5));
      check();
    });
  });

  test("the emulator's never-answer front → timeout every time", async () => {
    const ep = await endpoint('never-answer', 'TLSv1.3');
    // Over a stream from `connect`: the time limit passes once the connection is open and the ClientHello sent.
    const opts = (): TlsProbeOpts => {
      const clock = new FakeClock();
      const connect = async (): Promise<Duplex> => {
        const stream = await tcp(ep.port);
        setImmediate(() => clock.advance(50));
        return stream;
      };
      return probeOpts(ep.port, {timeoutMs: 50, clock, connect});
    };
    expect(await verdicts(opts, 10)).toEqual({
      [`timeout: the builder at 127.0.0.1:${ep.port} never completed a TLS handshake within 50 ms (it accepted the connection)`]: 10
    });
  });

  test('aborting during the handshake → aborted', async () => {
    let connected: () => void = () => undefined;
    const arrived = new Promise<void>(resolve => (connected = resolve));
    const {port} = await listen(createNetServer(() => connected()));
    const controller = new AbortController();
    const probe = mutualTlsProbe(probeOpts(port, {timeoutMs: 60_000, signal: controller.signal}));
    await arrived;
    controller.abort();
    const e = await probeError(probe);
    expect(e.kind).toBe('aborted');
    expect(e.message).toBe(`TLS check of 127.0.0.1:${port} was cancelled`);
  });

  test('an already aborted signal → aborted without connecting', async () => {
    const arrivals: (number | undefined)[] = [];
    const {port} = await listen(createNetServer(s => arrivals.push(s.remotePort)));
    const e = await probeError(mutualTlsProbe(probeOpts(port, {signal: AbortSignal.abort()})));
    expect(e.kind).toBe('aborted');
    // Connections are accepted in order: a connection the probe had opened would arrive before this one.
    const marker = (await tcp(port)) as Socket;
    await new Promise<void>(resolve => {
      const check = (): void => (arrivals.length > 0 ? resolve() : void setTimeout(check, 5));
      check();
    });
    expect(arrivals).toEqual([marker.localPort]);
    marker.destroy();
  });

  // prettier-ignore
  test.each<[number, string, () => {ca: string; cert: string; key: string}]>([
    [1, 'a key that is not a key', () => ({...goodPems(), key: '-----BEGIN PRIVATE KEY-----\nbm9wZQ==\n-----END PRIVATE KEY-----\n'})],
    [2, 'a key that does not match the certificate', () => ({...goodPems(), key: strangerClient.key})],
    [3, 'a CA that is not a certificate', () => ({...goodPems(), ca: '-----BEGIN CERTIFICATE-----\nbm9wZQ==\n-----END CERTIFICATE-----\n'})]
  ])('[%d] %s → rejects with a TlsProbeError of kind rejected, not a plain Error', async (_n, _what, pems) => {
    const server = await mtlsServer();
    const e = await mutualTlsProbe(probeOpts(server.port, {pems: pems()})).then(
      () => undefined,
      (err: unknown) => err
    );
    expect(e).toMatchObject({name: 'TlsProbeError', kind: 'rejected'});
    expect(server.handshakes()).toBe(0);
  });
});
