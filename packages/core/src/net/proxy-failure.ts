import {STATUS_CODES} from 'node:http';
import type {ProxyChoice} from './proxy-env.js';
import {ProxyError} from './proxy-error.js';

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

/** A failure to reach the proxy or to get its answer to the CONNECT (`e` from node:net, node:tls or undici). */
export function connectFailure(proxy: ProxyChoice, target: string, e: unknown): ProxyError {
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

/** The proxy answered the CONNECT to `host` (`target` is host:port) with `status`, not 200. */
export function refused(proxy: ProxyChoice, host: string, target: string, status: number): ProxyError {
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

/** The TLS handshake with `target` over an open tunnel failed. */
export function tlsFailure(proxy: ProxyChoice, target: string, e: NodeJS.ErrnoException): ProxyError {
  const code = e.code ?? 'ETLS';
  const certificate = /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|ALTNAME/.test(code);
  const advice = certificate
    ? `trust the CA that signed ${target}'s certificate (or the proxy's, if it inspects TLS) with NODE_EXTRA_CA_CERTS`
    : `check ${proxy.variable}`;
  // Node 24 appends advice about its own command-line flags, which nobody can pass to an action's node.
  const why = e.message.replace(
    /; if the root CA is installed locally, try running Node\.js with --use-system-ca$/,
    ''
  );
  return new ProxyError(
    `the TLS handshake with ${target} through the proxy ${proxy.origin} failed (${code}: ${why}): ${advice}`,
    {failure: 'tls', code, proxy: proxy.origin, target, cause: e}
  );
}

/** A request through the proxy that did not open the tunnel within `ms` (stalled CONNECT or handshake). */
export function tunnelTimeout(proxy: ProxyChoice, target: string, ms: number): ProxyError {
  const message = `the proxy ${proxy.origin} did not open the tunnel to ${target} within ${ms} ms: check ${proxy.variable}`;
  return new ProxyError(message, {failure: 'broken', code: 'ETIMEDOUT', proxy: proxy.origin, target});
}
