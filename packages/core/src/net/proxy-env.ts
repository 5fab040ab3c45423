/** The environment proxy settings are read from; process.env by default. */
export type ProxyEnv = Readonly<Record<string, string | undefined>>;

/** The variables that can name a proxy, in the order they are looked up. */
export type ProxyVariable = 'https_proxy' | 'HTTPS_PROXY' | 'http_proxy' | 'HTTP_PROXY';

/** The proxy a request goes through, as the environment chose it. */
export interface ProxyChoice {
  /** The proxy URL as configured, credentials included: connect with it, never print it. */
  readonly url: URL;
  /** `http://host:port` without credentials: for messages and logs. */
  readonly origin: string;
  /** The variable it came from, for messages ("check HTTPS_PROXY"). */
  readonly variable: ProxyVariable;
  /** `Basic …` from the URL's user:password (percent-decoded), when it has any. */
  readonly authorization?: string;
}

/** ProxyConfigError is a proxy variable that cannot be used; the message names the variable, never its credentials. */
export class ProxyConfigError extends Error {
  readonly variable: ProxyVariable;
  constructor(variable: ProxyVariable, message: string) {
    super(message);
    this.name = 'ProxyConfigError';
    this.variable = variable;
  }
}

/**
 * The proxy for a request to `target`, chosen exactly as the official actions do (@actions/http-client
 * `getProxyUrl`, lib/proxy.ts): https targets use https_proxy, then HTTPS_PROXY; http targets http_proxy, then
 * HTTP_PROXY; undefined when none is set or `bypassesProxy` says so. That function only reads process.env, so
 * this mirrors it over an injected env (the tests compare both on one table). One deliberate difference: a
 * value without a scheme (`proxy.corp:3128`) is taken as `http://proxy.corp:3128` (as curl does), where
 * @actions/http-client would read "proxy.corp:" as the URL scheme and fail later. Throws ProxyConfigError for
 * a value that is no http(s) URL.
 */
export function proxyFor(target: URL | string, env: ProxyEnv = process.env): ProxyChoice | undefined {
  const url = typeof target === 'string' ? new URL(target) : target;
  if (bypassesProxy(url, env)) return undefined;
  const names: ProxyVariable[] =
    url.protocol === 'https:' ? ['https_proxy', 'HTTPS_PROXY'] : ['http_proxy', 'HTTP_PROXY'];
  const variable = names.find(n => env[n]);
  if (variable === undefined) return undefined;
  return parseProxyUrl(variable, env[variable] as string);
}

/**
 * Whether a request to `target` skips the proxy, as @actions/http-client `checkBypass` decides: loopback hosts
 * (localhost, 127.*, [::1]) always; else when no_proxy (or, when that is empty, NO_PROXY) has an entry that is
 * `*`, the host, `host:port` (the port defaulting to 80/443), a parent domain of the host (`example.com`
 * matches `api.example.com`), or a suffix starting with a dot (`.example.com`: subdomains only). Entries are comma-separated, trimmed, and
 * compared without regard to case. IP ranges (CIDR) are not supported, as there.
 */
export function bypassesProxy(target: URL, env: ProxyEnv = process.env): boolean {
  if (!target.hostname) return false;
  if (isLoopbackHost(target.hostname)) return true;
  const noProxy = env['no_proxy'] || env['NO_PROXY'] || '';
  if (!noProxy) return false;
  let port: number | undefined;
  if (target.port) port = Number(target.port);
  else if (target.protocol === 'http:') port = 80;
  else if (target.protocol === 'https:') port = 443;
  const host = target.hostname.toUpperCase();
  const hosts = port === undefined ? [host] : [host, `${host}:${port}`];
  const entries = noProxy
    .split(',')
    .map(e => e.trim().toUpperCase())
    .filter(e => e);
  return entries.some(
    e => e === '*' || hosts.some(h => h === e || h.endsWith(`.${e}`) || (e.startsWith('.') && h.endsWith(e)))
  );
}

/** The loopback test of @actions/http-client (`isLoopbackAddress`): a URL hostname, brackets kept for IPv6. */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase();
  return h === 'localhost' || h.startsWith('127.') || h.startsWith('[::1]') || h.startsWith('[0:0:0:0:0:0:0:1]');
}

function parseProxyUrl(variable: ProxyVariable, value: string): ProxyChoice {
  const text = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ProxyConfigError(variable, `${variable} is not a URL: set it to http://host:port`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') {
    throw new ProxyConfigError(
      variable,
      `${variable} must be an http:// or https:// proxy URL, got ${url.protocol}//${url.host}`
    );
  }
  const origin = `${url.protocol}//${url.host}`;
  if (url.username === '' && url.password === '') return {url, origin, variable};
  let user: string;
  let password: string;
  try {
    user = decodeURIComponent(url.username);
    password = decodeURIComponent(url.password);
  } catch {
    throw new ProxyConfigError(variable, `${variable} has badly percent-encoded credentials (proxy ${origin})`);
  }
  const authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  return {url, origin, variable, authorization};
}
