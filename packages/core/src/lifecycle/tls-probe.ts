import {isIP} from 'node:net';
import type {Duplex} from 'node:stream';
import {checkServerIdentity, connect, type ConnectionOptions, type TLSSocket} from 'node:tls';
import type {BuilderPems} from '../certs/cert-store.js';
import {systemClock, type Clock} from '../clock.js';
import {h2ClientPreface, readH2ServerStart} from './h2-preface.js';
import {tlsAlert, VERIFY_ERRORS} from './tls-alerts.js';

export interface TlsProbeOpts {
  hostname: string;
  port: number;
  pems: BuilderPems;
  /** Time limit of one probe, connection included. */
  timeoutMs: number;
  /** What measures timeoutMs (its timer). Default: a real timer. */
  clock?: Clock;
  signal?: AbortSignal;
  /**
   * Opens the stream the TLS connection runs over (e.g. an HTTP proxy tunnel); by default a direct TCP
   * connection to hostname:port. The signal aborts at the probe's time limit or cancellation. An error it
   * throws makes the builder 'unreachable', unless it is a TlsProbeError (rethrown as is).
   */
  connect?: (signal?: AbortSignal) => Promise<Duplex>;
}

/**
 * Why a probe failed. `rejected` means the TLS material is wrong, and `side` says whose certificate was
 * refused: 'client' when the builder refused ours with a certificate alert, 'server' when the builder's
 * certificate does not match the CA or host. The others mean "not ready yet" (poll again): `unreachable`
 * (no handshake), `timeout` (no handshake, or no HTTP/2 answer, in time), `closed` (the handshake completed,
 * then the connection closed before the server's HTTP/2 preface: also how a front refuses a client
 * certificate without an alert), `not-h2` (the server answered something that is not HTTP/2).
 */
export class TlsProbeError extends Error {
  readonly kind: 'unreachable' | 'rejected' | 'timeout' | 'closed' | 'not-h2' | 'aborted';
  readonly code?: string;
  readonly side?: 'client' | 'server';
  constructor(kind: TlsProbeError['kind'], message: string, code?: string, side?: 'client' | 'server') {
    super(message);
    this.name = 'TlsProbeError';
    this.kind = kind;
    this.code = code;
    if (side) this.side = side;
  }
}

/**
 * TlsProbe checks that a builder endpoint completes a mutual-TLS handshake and answers HTTP/2 over it; tests
 * may inject their own.
 */
export type TlsProbe = (opts: TlsProbeOpts) => Promise<void>;

const NOT_LISTENING = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * Opens a TLS connection with the builder's CA and client certificate (offering ALPN h2, as BuildKit's gRPC
 * clients do), sends HTTP/2's client preface right after the handshake and resolves once the server's preface
 * (its SETTINGS frame) arrives: proof that the builder accepted our certificate and speaks the protocol
 * buildx will use. A completed handshake alone proves neither: in TLS 1.3 the server checks our certificate
 * after our side of the handshake ends, and a front that refuses it may just close (Node's TLS servers with
 * requestCert + rejectUnauthorized do, without an alert); buildx then fails after ~20 s with "context
 * deadline exceeded". The preface goes out at once, so a front that closes idle connections sees a talking one.
 *
 * Why the preface and not a gRPC call (e.g. the health check or Control/ListWorkers through node:http2):
 * the server's SETTINGS frame is its first answer to any HTTP/2 client, buildx's included, so it proves what
 * a call would (certificate accepted, HTTP/2 server reached), one round trip after the handshake, with ~60
 * lines and no protocol library; a call would add HEADERS/DATA, a protobuf answer and a service the builder
 * must implement, and what it reports (workers, platforms) is what `buildx inspect --bootstrap` reads anyway.
 * Measured on loopback: a median 4.3 ms against the emulator (3.3 ms for the handshake alone), 52 ms through
 * the emulator's proxy to a real BuildKit (dockerd's /grpc upgrade), where `buildx inspect --bootstrap` took 360 ms.
 *
 * The verdict rests on evidence, never on which event comes first:
 * - rejected: the builder's certificate fails verification against the CA and host from the details (side
 *   'server'), or the builder answers with a certificate alert (side 'client');
 * - accepted: the server's HTTP/2 preface arrives, in TLS 1.2 and 1.3 alike;
 * - closed: the handshake completed (or, in TLS 1.2, our certificate went out), then a close or reset before
 *   the server's preface (not ready yet: a front without a backend yet, or one refusing our certificate
 *   without an alert; the message names the certificate as the likely cause);
 * - not-h2: the server sent bytes that are not an HTTP/2 server preface;
 * - unreachable: refused, reset, closed or failed before the handshake completed, or any alert that is not
 *   about a certificate (e.g. a front without a healthy backend): not up yet;
 * - timeout: no handshake, or no HTTP/2 preface after it, within timeoutMs.
 */
export const mutualTlsProbe: TlsProbe = opts =>
  new Promise<void>((resolve, reject) => {
    const where = `${opts.hostname}:${opts.port}`;
    const cancelled = (): TlsProbeError => new TlsProbeError('aborted', `TLS check of ${where} was cancelled`);
    if (opts.signal?.aborted) return reject(cancelled());

    let socket: TLSSocket | undefined;
    let stream: Duplex | undefined;
    let connected = false;
    let handshakeDone = false;
    /** TLS 1.2: our certificate flight went out (the master secret exists), the server's Finished not yet in. */
    let certificateSent = false;
    let settled = false;
    /** The server's first bytes after the handshake, until they show its HTTP/2 preface. */
    let received = Buffer.alloc(0);
    /** Aborts opts.connect once the probe is over, whatever ended it. */
    const limit = new AbortController();

    const settle = (err?: TlsProbeError): void => {
      if (settled) return;
      settled = true;
      time.dispose();
      limit.abort();
      socket?.destroy();
      stream?.destroy();
      if (err) reject(err);
      else resolve();
    };
    /**
     * A close or reset once the server has our certificate and before its HTTP/2 preface: after the handshake,
     * or (TLS 1.2, where a Node server closes before its Finished goes out) after our certificate flight.
     */
    const closedEarly = (how: string, code?: string): TlsProbeError =>
      new TlsProbeError(
        'closed',
        (handshakeDone
          ? `the builder at ${where} completed the TLS handshake, then ${how} before answering HTTP/2 (no SETTINGS frame)`
          : `the builder at ${where} ${how} right after our client certificate, before the TLS handshake completed`) +
          `: a TLS front that refuses our client certificate closes like this, without an alert. Check that the ` +
          `builder trusts the CA that signed client_cert from the details (and that the certificate is valid now and ` +
          `allows client authentication); if it does, nothing serves behind the builder's TLS front yet`,
        code
      );
    const onTimeout = (): void => {
      if (handshakeDone) {
        return settle(
          new TlsProbeError(
            'timeout',
            `the builder at ${where} completed the TLS handshake but did not answer HTTP/2 within ${opts.timeoutMs} ms ` +
              `(no SETTINGS frame after our connection preface): nothing behind its TLS front speaks gRPC yet`
          )
        );
      }
      const how = connected ? 'it accepted the connection' : 'no connection was established';
      settle(
        new TlsProbeError(
          'timeout',
          `the builder at ${where} never completed a TLS handshake within ${opts.timeoutMs} ms (${how})`
        )
      );
    };
    // The time limit, or the caller's cancellation; disposed once settled.
    const time = (opts.clock ?? systemClock).deadline(opts.timeoutMs, {parents: [opts.signal]});
    time.signal.addEventListener('abort', () => (time.expired ? onTimeout() : settle(cancelled())), {once: true});

    const onError = (err: NodeJS.ErrnoException): void => {
      const code = err.code;
      const alert = tlsAlert(err);
      if (alert?.certificate) {
        return settle(
          new TlsProbeError(
            'rejected',
            `the mutual-TLS handshake with ${where} failed: the builder refused our client certificate (alert: ${alert.name})`,
            code,
            'client'
          )
        );
      }
      let message: string;
      if (alert) message = `the builder at ${where} answered the TLS handshake with an alert (${alert.name})`;
      else if (handshakeDone || certificateSent)
        return settle(closedEarly(`reset the connection (${code ?? err.message})`, code));
      else if (code && NOT_LISTENING.has(code)) message = `nothing accepts TLS connections at ${where} yet (${code})`;
      else if (code === 'ECONNRESET' || code === 'EPIPE')
        message = `the builder at ${where} closed the connection before the TLS handshake completed (${code})`;
      else message = `the TLS handshake with ${where} did not complete: ${err.message}`;
      settle(new TlsProbeError('unreachable', message, code));
    };

    /** Settles on the server's first bytes once they show its HTTP/2 preface or something else. */
    const examine = (): void => {
      if (!handshakeDone || received.length === 0) return;
      const start = readH2ServerStart(received);
      if (start.kind === 'preface') return settle();
      if (start.kind === 'not-h2') {
        settle(
          new TlsProbeError(
            'not-h2',
            `the builder at ${where} completed the TLS handshake but answered our HTTP/2 connection preface with ${start.what}: it does not serve BuildKit's gRPC there`
          )
        );
      }
    };

    const startTls = (): void => {
      let identityError: Error | undefined;
      try {
        socket = connect({
          // Over `stream` when there is one (the port is then unused).
          ...builderTlsOptions(opts),
          socket: stream,
          // Verified below, so that a refused server certificate is told apart from other failures.
          rejectUnauthorized: false,
          checkServerIdentity: (host, cert) => (identityError = checkServerIdentity(host, cert))
        });
      } catch (e) {
        // An unusable key or a key that does not match the certificate fails before any connection.
        const err = e as NodeJS.ErrnoException;
        return settle(
          new TlsProbeError('rejected', `the TLS material for ${where} is unusable: ${err.message}`, err.code)
        );
      }
      const tlsSocket = socket;
      tlsSocket.once('connect', () => (connected = true));
      tlsSocket.once('secureConnect', () => {
        if (!tlsSocket.authorized) {
          const code = verifyCode(tlsSocket.authorizationError);
          const why = identityError?.message ?? (VERIFY_ERRORS[code] ? `${VERIFY_ERRORS[code]} (${code})` : code);
          return settle(
            new TlsProbeError(
              'rejected',
              `the mutual-TLS handshake with ${where} failed: the builder's server certificate does not match the CA/host from the details: ${why}`,
              code,
              'server'
            )
          );
        }
        handshakeDone = true;
        // At once: a front that closes idle connections must see this one talk.
        tlsSocket.write(h2ClientPreface());
        examine();
      });
      tlsSocket.on('data', (chunk: Buffer) => {
        received = Buffer.concat([received, chunk]);
        examine();
      });
      tlsSocket.on('error', onError);
      // The secret itself is not kept: the line only says how far the handshake went.
      tlsSocket.on('keylog', (line: Buffer) => {
        if (line.subarray(0, 14).toString('latin1') === 'CLIENT_RANDOM ') certificateSent = true;
      });
      tlsSocket.once('close', () => {
        if (handshakeDone || certificateSent) return settle(closedEarly('closed the connection'));
        settle(
          new TlsProbeError(
            'unreachable',
            `the builder at ${where} closed the connection before the TLS handshake completed`
          )
        );
      });
      // Flowing, so that the server's preface, a close and alerts are read as they come.
      tlsSocket.resume();
    };

    if (!opts.connect) return startTls();
    const open = opts.connect;
    Promise.resolve()
      .then(() => open(limit.signal))
      .then(
        s => {
          if (settled) return void s.destroy();
          stream = s;
          connected = true;
          // Errors of the stream reach the TLS socket too; this keeps one from going unhandled.
          s.on('error', () => undefined);
          startTls();
        },
        (e: unknown) => {
          if (settled) return;
          if (e instanceof TlsProbeError) return settle(e);
          const err = e as NodeJS.ErrnoException;
          settle(
            new TlsProbeError(
              'unreachable',
              `could not open a connection to ${where}: ${err?.message ?? String(e)}`,
              err?.code
            )
          );
        }
      );
  });

/**
 * How we reach a builder over mutual TLS, as BuildKit's gRPC clients do: its CA, our client certificate and
 * key from the details, ALPN h2, and SNI unless the host is an IP address.
 */
export function builderTlsOptions(opts: Pick<TlsProbeOpts, 'hostname' | 'port' | 'pems'>): ConnectionOptions {
  return {
    host: opts.hostname,
    port: opts.port,
    ca: opts.pems.ca,
    cert: opts.pems.cert,
    key: opts.pems.key,
    ALPNProtocols: ['h2'],
    servername: isIP(opts.hostname) ? undefined : opts.hostname
  };
}

/** authorizationError is typed as an Error but Node sets the verification error's code (a string). */
function verifyCode(e: unknown): string {
  if (typeof e === 'string') return e;
  const err = e as {code?: string; message?: string} | undefined;
  return err?.code ?? err?.message ?? 'unknown verification error';
}
