import type {Duplex} from 'node:stream';
import {Pool, ProxyAgent, type Dispatcher} from 'undici';
import type {ProxyChoice} from './proxy-env.js';
import type {ProxyError} from './proxy-error.js';
import {connectFailure, refused, tlsFailure} from './proxy-failure.js';

/**
 * A CONNECT that did not give a tunnel: the proxy could not be reached, hung up, or answered `status`. Its
 * code is none of undici's "recoverable socket" codes, so undici fails the request instead of dialling again.
 */
class TunnelRefused extends Error {
  readonly code = 'EPROXYTUNNEL';
  constructor(
    readonly status: number | undefined,
    cause?: unknown
  ) {
    super(status === undefined ? 'no tunnel through the proxy' : `the proxy answered the CONNECT with ${status}`, {
      cause
    });
    this.name = 'TunnelRefused';
  }
}

/** The client undici's ProxyAgent sends its CONNECTs with: every failure, and every status but 200, is a TunnelRefused. */
class ProxyLeg extends Pool {
  override connect(options: Dispatcher.ConnectOptions): Promise<Dispatcher.ConnectData>;
  override connect(
    options: Dispatcher.ConnectOptions,
    callback: (err: Error | null, data: Dispatcher.ConnectData) => void
  ): void;
  override connect(
    options: Dispatcher.ConnectOptions,
    callback?: (err: Error | null, data: Dispatcher.ConnectData) => void
  ): Promise<Dispatcher.ConnectData> | void {
    if (callback) return super.connect(options, callback);
    return super.connect(options).then(
      answer => {
        if (answer.statusCode === 200) return answer;
        (answer.socket as Duplex).destroy();
        throw new TunnelRefused(answer.statusCode);
      },
      (e: unknown) => {
        throw new TunnelRefused(undefined, e);
      }
    );
  }
}

/**
 * undici's ProxyAgent for `proxy`: every request goes through a CONNECT tunnel (to http targets too, as
 * @actions/http-client does), with TLS over it to https targets, trusting `ca` instead of Node's store when
 * given. Tunnels are kept alive and reused. undici is given the proxy's origin and the Proxy-Authorization
 * value, never the URL with its credentials, so no error of its can quote them.
 */
export function createProxyAgent(proxy: ProxyChoice, opts: {ca?: string | string[]} = {}): ProxyAgent {
  return new ProxyAgent({
    uri: proxy.origin,
    token: proxy.authorization,
    requestTls: opts.ca === undefined ? undefined : {ca: opts.ca},
    clientFactory: (origin, o) => new ProxyLeg(origin, o)
  });
}

/**
 * The ProxyError of a request through `createProxyAgent` that failed before its tunnel (and, for https, the
 * TLS handshake over it) was up: nothing reached `target` (host:port). `e` is what undici reported.
 */
export function tunnelFailure(
  proxy: ProxyChoice,
  host: string,
  target: string,
  secure: boolean,
  e: unknown
): ProxyError {
  if (e instanceof TunnelRefused) {
    return e.status === undefined ? connectFailure(proxy, target, e.cause) : refused(proxy, host, target, e.status);
  }
  const err = (e ?? {}) as {code?: unknown; cause?: unknown};
  const code = typeof err.code === 'string' ? err.code : '';
  // The handshake with the target fails with node:tls's error (a name mismatch wrapped by undici).
  if (code === 'UND_ERR_PRX_TLS' && err.cause instanceof Error) return tlsFailure(proxy, target, err.cause);
  if (secure && code !== '' && !code.startsWith('UND_ERR_')) return tlsFailure(proxy, target, err as Error);
  return connectFailure(proxy, target, e);
}
