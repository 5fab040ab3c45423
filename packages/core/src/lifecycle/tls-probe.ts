import {isIP} from 'node:net';
import {connect, type TLSSocket} from 'node:tls';
import type {BuilderPems} from '../certs/cert-store.js';

export interface TlsProbeOpts {
  hostname: string;
  port: number;
  pems: BuilderPems;
  timeoutMs: number;
  signal?: AbortSignal;
}

/** Why a probe failed: `unreachable` may pass as the builder boots; `rejected` means the TLS material is wrong. */
export class TlsProbeError extends Error {
  readonly kind: 'unreachable' | 'rejected' | 'timeout' | 'aborted';
  readonly code?: string;
  constructor(kind: TlsProbeError['kind'], message: string, code?: string) {
    super(message);
    this.name = 'TlsProbeError';
    this.kind = kind;
    this.code = code;
  }
}

/** TlsProbe checks that a builder endpoint completes a mutual-TLS handshake; tests may inject their own. */
export type TlsProbe = (opts: TlsProbeOpts) => Promise<void>;

/** How long to wait for a TLS 1.3 server's verdict on our certificate when it sends no session ticket. */
const TLS13_ACCEPT_GRACE_MS = 300;

const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN'
]);

/**
 * Opens a TLS connection with the builder's CA and client certificate and resolves once the handshake
 * (including the server's verification of our certificate, when it rejects at once) completes.
 * Offers ALPN h2, as BuildKit's gRPC clients do.
 */
export const mutualTlsProbe: TlsProbe = opts =>
  new Promise<void>((resolve, reject) => {
    const where = `${opts.hostname}:${opts.port}`;
    if (opts.signal?.aborted) return reject(new TlsProbeError('aborted', `TLS check of ${where} was cancelled`));
    let socket: TLSSocket;
    try {
      socket = connect({
        host: opts.hostname,
        port: opts.port,
        ca: opts.pems.ca,
        cert: opts.pems.cert,
        key: opts.pems.key,
        ALPNProtocols: ['h2'],
        ...(isIP(opts.hostname) ? {} : {servername: opts.hostname})
      });
    } catch (e) {
      // An unusable key or a key that does not match the certificate fails before any connection.
      const err = e as NodeJS.ErrnoException;
      return reject(
        new TlsProbeError('rejected', `the TLS material for ${where} is unusable: ${err.message}`, err.code)
      );
    }
    let done = false;
    const finish = (err?: TlsProbeError): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      socket.destroy();
      if (err) reject(err);
      else resolve();
    };
    const onAbort = (): void => finish(new TlsProbeError('aborted', `TLS check of ${where} was cancelled`));
    const timer = setTimeout(
      () => finish(new TlsProbeError('timeout', `no TLS handshake with ${where} within ${opts.timeoutMs} ms`)),
      opts.timeoutMs
    );
    opts.signal?.addEventListener('abort', onAbort, {once: true});
    socket.once('secureConnect', () => {
      if (socket.getProtocol() !== 'TLSv1.3') return finish();
      // In TLS 1.3 the server checks our certificate after the client's handshake ends: acceptance shows
      // as a session ticket, rejection as an alert (an 'error'). Servers that send no ticket get a short grace.
      socket.once('session', () => finish());
      const grace = setTimeout(() => finish(), TLS13_ACCEPT_GRACE_MS);
      socket.once('close', () => clearTimeout(grace));
    });
    socket.once('error', (err: NodeJS.ErrnoException) => {
      const code = err.code ?? '';
      if (UNREACHABLE.has(code) && !socket.authorized) {
        finish(new TlsProbeError('unreachable', `nothing accepts TLS connections at ${where} yet (${code})`, code));
      } else {
        finish(new TlsProbeError('rejected', `the mutual-TLS handshake with ${where} failed: ${err.message}`, code));
      }
    });
    socket.once('close', () => {
      if (!done)
        finish(new TlsProbeError('rejected', `the builder at ${where} closed the TLS connection during the handshake`));
    });
  });
