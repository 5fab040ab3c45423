import {STATUS_CODES} from 'node:http';
import {isIP} from 'node:net';
import type {Duplex} from 'node:stream';
import {Client} from 'undici';
import type {ProxyChoice} from './proxy-env.js';
import {ProxyError} from './proxy-error.js';
import {TransportError} from './transport-error.js';

export interface TunnelOpts {
  proxy: ProxyChoice;
  /** The target host (a name, an IPv4 address, or an IPv6 address with or without brackets). */
  host: string;
  port: number;
  /** Aborting closes the proxy connection and rejects with a TransportError EABORTED. */
  signal?: AbortSignal;
  /** Trust for an https:// proxy's certificate (default Node's CA store, NODE_EXTRA_CA_CERTS included). */
  proxyCa?: string | string[];
}

/** Network codes that mean no connection to the proxy could be made. */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT'
]);

/**
 * Opens a CONNECT tunnel to `host:port` through the proxy and resolves with the raw stream: whatever is written
 * to it reaches the target (start TLS on it for an https target). The CONNECT exchange is undici's
 * (`Client#connect`); Proxy-Authorization carries the proxy URL's credentials. Every failure is a ProxyError
 * (notSent: the target got nothing), aborting rejects with a TransportError EABORTED.
 */
export async function openTunnel(opts: TunnelOpts): Promise<Duplex> {
  const {proxy} = opts;
  const target = authority(opts.host, opts.port);
  if (opts.signal?.aborted) throw aborted(target);
  // One client per tunnel: the tunnel's socket leaves the client once it is open.
  const client = new Client(proxy.url.origin, opts.proxyCa !== undefined ? {connect: {ca: opts.proxyCa}} : {});
  const headers: Record<string, string> = {host: target};
  if (proxy.authorization) headers['proxy-authorization'] = proxy.authorization;
  let answer: {statusCode: number; socket: Duplex};
  try {
    answer = await client.connect({path: target, headers, ...(opts.signal ? {signal: opts.signal} : {})});
  } catch (e) {
    void client.destroy().catch(() => undefined);
    if (opts.signal?.aborted) throw aborted(target, e);
    throw connectFailure(proxy, target, e);
  }
  // The client no longer owns the tunnel's socket: closing it leaves the tunnel open.
  void client.close().catch(() => undefined);
  if (answer.statusCode !== 200) {
    answer.socket.destroy();
    throw refused(proxy, opts.host, target, answer.statusCode);
  }
  if (opts.signal?.aborted) {
    answer.socket.destroy();
    throw aborted(target);
  }
  return answer.socket;
}

/** `host:port`, IPv6 addresses in brackets. */
export function authority(host: string, port: number): string {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return isIP(bare) === 6 ? `[${bare}]:${port}` : `${bare}:${port}`;
}

function aborted(target: string, cause?: unknown): TransportError {
  return new TransportError(`opening the tunnel to ${target} was aborted`, {code: 'EABORTED', notSent: true, cause});
}

function connectFailure(proxy: ProxyChoice, target: string, e: unknown): ProxyError {
  const err = e as {code?: unknown; message?: unknown};
  const raw = typeof err.code === 'string' && err.code !== '' ? err.code : 'ENETWORK';
  const detail = typeof err.message === 'string' ? err.message : String(e);
  if (UNREACHABLE.has(raw)) {
    const code = raw === 'UND_ERR_CONNECT_TIMEOUT' ? 'ETIMEDOUT' : raw;
    return new ProxyError(`cannot reach the proxy ${proxy.origin} (${code}): check ${proxy.variable}`, {
      failure: 'unreachable',
      code,
      proxy: proxy.origin,
      target,
      cause: e
    });
  }
  if (!raw.startsWith('UND_ERR_') && raw !== 'ECONNRESET' && raw !== 'EPIPE' && raw !== 'ENETWORK') {
    // TLS with an https:// proxy (its certificate), or another error before anything was exchanged.
    return new ProxyError(`cannot reach the proxy ${proxy.origin} (${raw}: ${detail}): check ${proxy.variable}`, {
      failure: 'unreachable',
      code: raw,
      proxy: proxy.origin,
      target,
      cause: e
    });
  }
  const code = raw === 'UND_ERR_HEADERS_TIMEOUT' ? 'ETIMEDOUT' : raw.startsWith('UND_ERR_') ? 'ECONNRESET' : raw;
  return new ProxyError(
    `the proxy ${proxy.origin} closed the connection while opening the tunnel to ${target} (${code}): check ${proxy.variable}`,
    {failure: 'broken', code, proxy: proxy.origin, target, cause: e}
  );
}

function refused(proxy: ProxyChoice, host: string, target: string, status: number): ProxyError {
  const answer = `HTTP ${status}${STATUS_CODES[status] ? ` ${STATUS_CODES[status]}` : ''}`;
  const bypass = `if ${host} is reachable without the proxy, add it to NO_PROXY`;
  let message: string;
  let code = 'EPROXYTUNNEL';
  if (status === 407) {
    code = 'EPROXYAUTH';
    const advice = proxy.authorization
      ? `check ${proxy.variable}'s credentials`
      : `${proxy.variable} has no credentials: give them as http://user:password@host:port`;
    message = `the proxy ${proxy.origin} refused the tunnel to ${target} (${answer}): ${advice}`;
  } else if (status === 403) {
    code = 'EPROXYFORBIDDEN';
    message = `the proxy ${proxy.origin} refused the tunnel to ${target} (${answer}): ask its administrator to allow ${target}, or ${bypass}`;
  } else if (status >= 500) {
    message = `the proxy ${proxy.origin} failed to open the tunnel to ${target} (${answer}): the proxy cannot reach ${target}; ${bypass}`;
  } else {
    message = `the proxy ${proxy.origin} refused the tunnel to ${target} (${answer}): check ${proxy.variable}`;
  }
  return new ProxyError(message, {failure: 'refused', code, proxy: proxy.origin, target, status});
}
