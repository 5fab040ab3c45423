import {createCipheriv, createHmac} from 'node:crypto';
import net from 'node:net';
import {Duplex} from 'node:stream';
import tls from 'node:tls';
import type {BuildkitBackend} from './buildkit-backend.js';
import {type EmulatorClock, systemClock} from './clock.js';

/**
 * How the TLS front of a builder treats a connection (what sits between the client and BuildKit):
 * - 'keep-open': a bare BuildKit: completes the handshake and serves the connection (the default).
 * - 'close-after-handshake': ends the TLS connection cleanly (close_notify, FIN) right after the handshake.
 * - 'reset-after-handshake': destroys the socket with a TCP RST right after the handshake.
 * - 'close-idle': closes a connection that sent no byte within `idleMs` of the handshake, like a load
 *   balancer; a connection that talks in time is served normally.
 * - 'refuse-client-cert': does not trust the client certificate: answers it with a TLS alert (`refusalAlert`).
 * - 'drop-client-cert': does not trust the client certificate and closes without an alert, as a Node TLS
 *   server with requestCert + rejectUnauthorized does (node lib/_tls_wrap.js onServerSocketSecure:
 *   `this.destroy()` on a verify error): in TLS 1.3 the client has completed its handshake by then.
 * - 'no-http2': completes the handshake and keeps the connection open, but nothing behind it speaks HTTP/2
 *   (a front whose upstream is down or is not BuildKit): reads and drops what the client sends, never answers.
 * - 'never-answer': accepts TCP connections and never speaks TLS.
 */
export const ENDPOINT_FRONTS = [
  'keep-open',
  'close-after-handshake',
  'reset-after-handshake',
  'close-idle',
  'refuse-client-cert',
  'drop-client-cert',
  'no-http2',
  'never-answer'
] as const;
export type EndpointFront = (typeof ENDPOINT_FRONTS)[number];

/**
 * What the endpoint does with its connections, changed at run time:
 * - 'normal': serves them.
 * - 'silent': open connections stay open but no byte flows either way; new ones are accepted at TCP level
 *   and never answered (a builder that died behind its front). Back to 'normal', everything held flows.
 * - 'kill': destroys every connection and stops listening; final.
 */
export type EndpointMode = 'normal' | 'silent' | 'kill';
export const ENDPOINT_MODES: readonly EndpointMode[] = ['normal', 'silent', 'kill'];

/** Default idle period of the 'close-idle' front. */
export const DEFAULT_FRONT_IDLE_MS = 200;

/** TLS alert descriptions (RFC 8446 §6.2) a refusing front can send. */
export const TLS_ALERTS = {
  badCertificate: 42,
  certificateExpired: 45,
  certificateUnknown: 46,
  unknownCa: 48,
  accessDenied: 49,
  certificateRequired: 116
} as const;

export interface BuilderEndpointOpts {
  /** Server certificate and key (PEM) and the CA that signs accepted client certificates. */
  serverCert: string;
  serverKey: string;
  caCert: string;
  backend: BuildkitBackend;
  /** Called with the number of open (authenticated) connections whenever it changes. */
  onConnectionCountChange?: (open: number) => void;
  /** Listen address; default 127.0.0.1. */
  host?: string;
  /** Default 'keep-open'. */
  front?: EndpointFront;
  /** Idle period of 'close-idle'; default DEFAULT_FRONT_IDLE_MS. */
  idleMs?: number;
  /** The alert 'refuse-client-cert' sends; default unknown CA (48). */
  refusalAlert?: number;
  /** Highest TLS version offered; default TLS 1.3 (tests use TLS 1.2 too). */
  maxVersion?: tls.SecureVersion;
  /** Runs the 'close-idle' timer; default the system clock. */
  clock?: EmulatorClock;
}

/**
 * BuilderEndpoint is one builder's mutual-TLS listener: it requires a client certificate signed by the
 * builder's own CA, offers ALPN h2 and http/1.1 (gRPC-Go clients insist on h2), and hands every
 * authenticated connection to the BuildKit backend, through the TLS front it was given.
 *
 * Every connection passes through a relay between its TCP socket and its TLS engine, so that the endpoint
 * can hold bytes (mode 'silent') or answer for the engine ('refuse-client-cert').
 */
export class BuilderEndpoint {
  readonly #opts: BuilderEndpointOpts;
  readonly #server: net.Server;
  readonly #connections = new Set<Connection>();
  readonly #onCount: (open: number) => void;
  #mode: EndpointMode = 'normal';
  #open = 0;
  #accepted = 0;
  #rejected = 0;
  #closing?: Promise<void>;
  #port = 0;

  private constructor(opts: BuilderEndpointOpts) {
    this.#opts = opts;
    this.#onCount = opts.onConnectionCountChange ?? (() => undefined);
    // Paused: a connection held while silent must not be read. No Nagle, as BuildKit (Go's net sets
    // TCP_NODELAY on every connection): with it, each gRPC answer (headers, data, trailers: three writes)
    // stalled ~40 ms on the client's delayed ACK.
    this.#server = net.createServer({pauseOnConnect: true, noDelay: true}, socket => this.#connection(socket));
  }

  /** Creates the listener on an ephemeral port and resolves once it listens. */
  static async listen(opts: BuilderEndpointOpts): Promise<BuilderEndpoint> {
    const endpoint = new BuilderEndpoint(opts);
    const server = endpoint.#server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, opts.host ?? '127.0.0.1', () => {
        server.off('error', reject);
        endpoint.#port = (server.address() as net.AddressInfo).port;
        resolve();
      });
    });
    return endpoint;
  }

  /** The TCP port the listener is bound to. */
  get port(): number {
    return this.#port;
  }

  get front(): EndpointFront {
    return this.#opts.front ?? 'keep-open';
  }

  get mode(): EndpointMode {
    return this.#mode;
  }

  /** Connections currently open past the handshake. */
  get openConnections(): number {
    return this.#open;
  }

  /** Connections accepted since the start. */
  get acceptedConnections(): number {
    return this.#accepted;
  }

  /** Handshakes that failed or were refused (no or foreign client certificate, protocol errors, refusals). */
  get rejectedHandshakes(): number {
    return this.#rejected;
  }

  /**
   * Changes the mode (see EndpointMode). 'normal' is allowed from 'silent' (and is a no-op when normal);
   * nothing is allowed after 'kill' or close(), except 'kill' again. Throws a descriptive Error otherwise.
   */
  setMode(mode: EndpointMode): void {
    if (!ENDPOINT_MODES.includes(mode)) throw new Error(`Unknown endpoint mode ${JSON.stringify(mode)}`);
    if (this.#mode === 'kill' || this.#closing) {
      if (mode === 'kill') return;
      throw new Error(`The endpoint ${this.#mode === 'kill' ? 'was killed' : 'is closed'}; it cannot become ${mode}`);
    }
    if (mode === this.#mode) return;
    this.#mode = mode;
    if (mode === 'kill') {
      this.#server.close();
      for (const c of this.#connections) c.destroy();
      return;
    }
    for (const c of this.#connections) {
      if (mode === 'silent') c.silence();
      else c.resume();
    }
  }

  /** Stops listening and destroys every connection. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= new Promise<void>(resolve => {
      // Already closed by 'kill' when listening stopped; the callback then gets an error, ignored.
      this.#server.close(() => resolve());
      for (const c of this.#connections) c.destroy();
    });
    return this.#closing;
  }

  #connection(socket: net.Socket): void {
    if (this.#closing || this.#mode === 'kill') {
      socket.destroy();
      return;
    }
    const connection = new Connection({
      socket,
      opts: this.#opts,
      onSecure: tlsSocket => this.#secure(tlsSocket),
      onRefused: () => (this.#rejected += 1),
      onClose: () => this.#connections.delete(connection)
    });
    this.#connections.add(connection);
    if (this.#mode === 'silent') connection.silence();
    connection.start();
  }

  /** A connection passed the handshake with a trusted client certificate. */
  #secure(socket: tls.TLSSocket): 'serve' | 'drop' {
    this.#accepted += 1;
    this.#open += 1;
    this.#onCount(this.#open);
    socket.on('close', () => {
      this.#open -= 1;
      this.#onCount(this.#open);
    });
    if (this.#closing || this.#mode === 'kill') return 'drop';
    return 'serve';
  }
}

interface ConnectionOpts {
  socket: net.Socket;
  opts: BuilderEndpointOpts;
  /** Counts the connection; 'drop' when the endpoint is closing. */
  onSecure: (socket: tls.TLSSocket) => 'serve' | 'drop';
  onRefused: () => void;
  onClose: () => void;
}

/**
 * Connection relays one client's bytes between its TCP socket and a TLS engine (a tls.Server of its own,
 * fed through a Duplex), applying the endpoint's front and mode.
 */
class Connection {
  readonly #socket: net.Socket;
  readonly #opts: BuilderEndpointOpts;
  readonly #hooks: ConnectionOpts;
  /** The engine's side of the relay; absent for 'never-answer' and before start. */
  #engine?: Duplex;
  #started = false;
  #silent = false;
  /** Drops whatever the engine sends from now on. */
  #cut = false;
  /** Engine output held while silent. */
  readonly #held: {chunk: Buffer; done: (err?: Error | null) => void}[] = [];
  /** 'refuse-client-cert': what the relay learns of the handshake. */
  readonly #refusal = {
    fromClient: Buffer.alloc(0),
    fromServer: Buffer.alloc(0),
    suite: 0,
    secret: undefined as Buffer | undefined,
    sent: false
  };

  constructor(hooks: ConnectionOpts) {
    this.#hooks = hooks;
    this.#socket = hooks.socket;
    this.#opts = hooks.opts;
    this.#socket.on('error', () => this.#socket.destroy());
    this.#socket.once('close', () => {
      this.#engine?.destroy();
      hooks.onClose();
    });
  }

  get #front(): EndpointFront {
    return this.#opts.front ?? 'keep-open';
  }

  /** Starts relaying (held until resume() when silent). */
  start(): void {
    if (this.#silent || this.#started) return;
    this.#started = true;
    if (this.#front === 'never-answer') {
      // Reads and drops the ClientHello and whatever follows; notices the client leaving.
      this.#socket.on('data', () => undefined);
      this.#socket.resume();
      return;
    }
    const engine = new Duplex({
      read: () => {
        if (!this.#silent) this.#socket.resume();
      },
      write: (chunk: Buffer, _encoding, done) => this.#toClient(chunk, done),
      final: done => {
        this.#socket.end();
        done();
      },
      destroy: (err, done) => {
        // After a refusal the socket lives on to deliver the alert and drain the client.
        if (!this.#refusal.sent) this.#socket.destroy();
        done(err);
      }
    });
    this.#engine = engine;
    this.#socket.on('data', (chunk: Buffer) => this.#fromClient(chunk));
    this.#socket.on('end', () => engine.push(null));
    const server = tls.createServer({
      cert: this.#opts.serverCert,
      key: this.#opts.serverKey,
      ca: [this.#opts.caCert],
      requestCert: true,
      rejectUnauthorized: true,
      ALPNProtocols: ['h2', 'http/1.1'],
      minVersion: 'TLSv1.2',
      ...(this.#opts.maxVersion ? {maxVersion: this.#opts.maxVersion} : {})
    });
    server.on('secureConnection', socket => this.#secure(socket));
    server.on('tlsClientError', () => {
      if (this.#refusal.sent) return;
      this.#hooks.onRefused();
      this.#socket.destroy();
    });
    if (this.#front === 'refuse-client-cert') {
      server.on('keylog', line => {
        const [label, , secret] = line.toString('latin1').trim().split(' ');
        if (label === 'SERVER_TRAFFIC_SECRET_0' && secret) this.#refusal.secret = Buffer.from(secret, 'hex');
      });
    }
    server.emit('connection', engine);
    this.#socket.resume();
  }

  /** Stops the flow both ways; the TCP connection stays open. */
  silence(): void {
    this.#silent = true;
    this.#socket.pause();
  }

  /** Lets held bytes and held connections flow again. */
  resume(): void {
    if (!this.#silent) return;
    this.#silent = false;
    if (!this.#started) return this.start();
    for (const {chunk, done} of this.#held.splice(0)) this.#socket.write(chunk, done);
    this.#socket.resume();
  }

  destroy(): void {
    this.#socket.destroy();
    this.#engine?.destroy();
  }

  #fromClient(chunk: Buffer): void {
    const engine = this.#engine;
    if (!engine) return;
    if (this.#front === 'refuse-client-cert') return this.#refuseFromClient(chunk);
    if (!engine.push(chunk)) this.#socket.pause();
  }

  #toClient(chunk: Buffer, done: (err?: Error | null) => void): void {
    if (this.#cut || this.#refusal.sent) return done();
    if (this.#front === 'refuse-client-cert') this.#watchServerHello(chunk);
    if (this.#silent) {
      this.#held.push({chunk, done});
      return;
    }
    this.#socket.write(chunk, done);
  }

  #secure(socket: tls.TLSSocket): void {
    socket.on('error', () => socket.destroy());
    if (this.#front === 'drop-client-cert') {
      // A refusal, not a connection: counted as such, closed as Node closes it (no alert, no answer).
      this.#hooks.onRefused();
      socket.destroy();
      return;
    }
    if (this.#hooks.onSecure(socket) === 'drop') {
      socket.destroy();
      return;
    }
    const serve = (s: tls.TLSSocket): void => {
      this.#opts.backend.serve(s);
      // A backend that listens for 'data' on a stream paused by 'close-idle' expects it to flow.
      if (s.isPaused() && s.listenerCount('data') > 0) s.resume();
    };
    switch (this.#front) {
      case 'close-after-handshake':
        socket.resume();
        socket.end();
        return;
      case 'reset-after-handshake': {
        // A reset reaching a client with unread bytes reads as a plain close there, so: TLS 1.3 drops what
        // the engine sends after the handshake (session tickets) and resets at once; TLS 1.2 must deliver
        // the server Finished first (still in the engine when this runs) and resets a moment later.
        const tls13 = socket.getProtocol() === 'TLSv1.3';
        if (tls13) this.#cut = true;
        const reset = (): void => void (this.#socket.destroyed || this.#socket.resetAndDestroy());
        setImmediate(() => {
          const flushed = (): void => void (tls13 ? reset() : setTimeout(reset, TLS12_RESET_DELAY_MS));
          if (this.#socket.writableLength > 0) this.#socket.once('drain', flushed);
          else flushed();
        });
        return;
      }
      case 'no-http2':
        socket.on('data', () => undefined);
        socket.resume();
        return;
      case 'close-idle': {
        // The first byte keeps the connection: it goes back into the stream for the backend.
        const talked = (first: Buffer): void => {
          idle.cancel();
          socket.pause();
          socket.unshift(first);
          serve(socket);
        };
        const idle = (this.#opts.clock ?? systemClock).setTimer(() => {
          socket.off('data', talked);
          socket.resume();
          socket.end();
        }, this.#opts.idleMs ?? DEFAULT_FRONT_IDLE_MS);
        socket.once('close', () => idle.cancel());
        socket.once('data', talked);
        return;
      }
      default:
        serve(socket);
    }
  }

  /**
   * 'refuse-client-cert': passes the ClientHello (and ChangeCipherSpec) to the engine; the first other
   * record is the client's second flight, which carries its certificate. The engine never sees it: the
   * relay answers with the alert (encrypted under the server's application key in TLS 1.3, plaintext
   * before the server's Finished in TLS 1.2) and closes the connection.
   */
  #refuseFromClient(chunk: Buffer): void {
    const r = this.#refusal;
    if (r.sent) return;
    r.fromClient = Buffer.concat([r.fromClient, chunk]);
    for (;;) {
      const record = nextRecord(r.fromClient);
      if (!record) return;
      r.fromClient = r.fromClient.subarray(record.length);
      const isClientHello = record[0] === RECORD_HANDSHAKE && record[5] === HANDSHAKE_CLIENT_HELLO;
      if (isClientHello || record[0] === RECORD_CHANGE_CIPHER_SPEC) {
        this.#engine?.push(record);
        continue;
      }
      r.sent = true;
      this.#hooks.onRefused();
      const alert = this.#opts.refusalAlert ?? TLS_ALERTS.unknownCa;
      const tls13 = TLS13_SUITES[r.suite] && r.secret;
      this.#socket.write(tls13 ? tls13Alert(r.suite, r.secret as Buffer, alert) : tls12Alert(alert));
      this.#socket.end();
      // Reads on until the client hangs up (closing with unread bytes would send a reset).
      this.#socket.setTimeout(REFUSED_LINGER_MS, () => this.#socket.destroy());
      this.#engine?.destroy();
      return;
    }
  }

  /** Records the cipher suite of the ServerHello the engine sends. */
  #watchServerHello(chunk: Buffer): void {
    const r = this.#refusal;
    if (r.suite) return;
    r.fromServer = Buffer.concat([r.fromServer, chunk]);
    for (;;) {
      const record = nextRecord(r.fromServer);
      if (!record) return;
      r.fromServer = r.fromServer.subarray(record.length);
      if (record[0] !== RECORD_HANDSHAKE || record[5] !== HANDSHAKE_SERVER_HELLO) continue;
      // header 5, handshake type 1 + length 3, version 2, random 32, session id (length-prefixed), suite 2
      const sessionIdLength = record[5 + 4 + 2 + 32] ?? 0;
      const at = 5 + 4 + 2 + 32 + 1 + sessionIdLength;
      if (record.length >= at + 2) r.suite = record.readUInt16BE(at);
    }
  }
}

/** 'reset-after-handshake', TLS 1.2: the pause between the server Finished and the reset. */
const TLS12_RESET_DELAY_MS = 50;
/** How long a refused connection waits for the client to hang up. */
const REFUSED_LINGER_MS = 5000;
const RECORD_CHANGE_CIPHER_SPEC = 20;
const RECORD_ALERT = 21;
const RECORD_HANDSHAKE = 22;
const RECORD_APPLICATION_DATA = 23;
const HANDSHAKE_CLIENT_HELLO = 1;
const HANDSHAKE_SERVER_HELLO = 2;
const ALERT_FATAL = 2;

/** The AEAD, hash and key length of each TLS 1.3 cipher suite (RFC 8446 §B.4). */
const TLS13_SUITES: Record<number, {cipher: string; hash: string; keyLength: number}> = {
  0x1301: {cipher: 'aes-128-gcm', hash: 'sha256', keyLength: 16},
  0x1302: {cipher: 'aes-256-gcm', hash: 'sha384', keyLength: 32},
  0x1303: {cipher: 'chacha20-poly1305', hash: 'sha256', keyLength: 32}
};

/** The first complete TLS record of `buf` (5-byte header + body), if there is one. */
function nextRecord(buf: Buffer): Buffer | undefined {
  if (buf.length < 5) return undefined;
  const end = 5 + buf.readUInt16BE(3);
  return buf.length >= end ? buf.subarray(0, end) : undefined;
}

/** A fatal alert as a plaintext record (TLS 1.2 before ChangeCipherSpec). */
function tls12Alert(description: number): Buffer {
  return Buffer.from([RECORD_ALERT, 3, 3, 0, 2, ALERT_FATAL, description]);
}

/**
 * A fatal alert as the first record under the server's application traffic secret (TLS 1.3, RFC 8446
 * §5.2 and §7.3): sequence number 0, since the engine sent nothing under that key yet.
 */
function tls13Alert(suite: number, secret: Buffer, description: number): Buffer {
  const {cipher, hash, keyLength} = TLS13_SUITES[suite] as (typeof TLS13_SUITES)[number];
  const key = hkdfExpandLabel(hash, secret, 'key', keyLength);
  const iv = hkdfExpandLabel(hash, secret, 'iv', 12);
  const inner = Buffer.from([ALERT_FATAL, description, RECORD_ALERT]);
  const header = Buffer.from([RECORD_APPLICATION_DATA, 3, 3, 0, inner.length + 16]);
  const aead = createCipheriv(cipher as 'aes-128-gcm', key, iv, {authTagLength: 16});
  aead.setAAD(header);
  return Buffer.concat([header, aead.update(inner), aead.final(), aead.getAuthTag()]);
}

/** HKDF-Expand-Label with an empty context, for outputs no longer than the hash (one HMAC block). */
function hkdfExpandLabel(hash: string, secret: Buffer, label: string, length: number): Buffer {
  const fullLabel = Buffer.from(`tls13 ${label}`, 'latin1');
  const info = Buffer.concat([
    Buffer.from([length >> 8, length & 0xff, fullLabel.length]),
    fullLabel,
    Buffer.from([0, 1])
  ]);
  return createHmac(hash, secret).update(info).digest().subarray(0, length);
}
