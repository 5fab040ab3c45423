import {TransportError} from './transport-error.js';

/** What went wrong on the way through the proxy. */
export type ProxyFailure =
  /** The proxy's URL in the environment is unusable. */
  | 'config'
  /** No connection to the proxy (refused, unknown host, …). */
  | 'unreachable'
  /** The proxy answered the CONNECT with another status than 200. */
  | 'refused'
  /** The proxy closed the connection or stopped answering while the tunnel was being opened. */
  | 'broken'
  /** The tunnel opened but the TLS handshake with the target through it failed. */
  | 'tls';

export interface ProxyErrorOpts {
  failure: ProxyFailure;
  /** ECONNREFUSED, ETIMEDOUT, EPROXYAUTH (407), EPROXYFORBIDDEN (403), EPROXYTUNNEL (other statuses), a TLS code, … */
  code: string;
  /** The proxy, without credentials; unset when its URL is unusable. */
  proxy?: string;
  /** `host:port` the tunnel was for. */
  target: string;
  /** The proxy's answer to the CONNECT, when it answered. */
  status?: number;
  cause?: unknown;
}

/**
 * ProxyError is a request that never got through the proxy: nothing reached the target, so it is always
 * `notSent`. The message names the proxy (never its credentials), what it did, and what to check.
 */
export class ProxyError extends TransportError {
  readonly failure: ProxyFailure;
  readonly proxy?: string;
  readonly target: string;
  readonly status?: number;

  constructor(message: string, opts: ProxyErrorOpts) {
    super(message, {code: opts.code, notSent: true, cause: opts.cause});
    this.name = 'ProxyError';
    this.failure = opts.failure;
    this.proxy = opts.proxy;
    this.target = opts.target;
    this.status = opts.status;
  }
}
