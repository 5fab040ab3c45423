import type {Duplex} from 'node:stream';
import {Client} from 'undici';
import {authority} from './authority.js';
import type {ProxyChoice} from './proxy-env.js';
import {connectFailure, refused} from './proxy-failure.js';
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
  const client = new Client(proxy.url.origin, {connect: {ca: opts.proxyCa}});
  const headers: Record<string, string> = {host: target};
  if (proxy.authorization) headers['proxy-authorization'] = proxy.authorization;
  let answer: {statusCode: number; socket: Duplex};
  try {
    answer = await client.connect({path: target, headers, signal: opts.signal});
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

function aborted(target: string, cause?: unknown): TransportError {
  return new TransportError(`opening the tunnel to ${target} was aborted`, {code: 'EABORTED', notSent: true, cause});
}
