import {isIP} from 'node:net';

/**
 * Port assumed when the service gives a host without one. The spec only says `host` is "an address
 * for a TCP connection"; 2376 is the Docker-over-TLS convention that peers fall back to.
 */
export const DEFAULT_BUILDER_PORT = 2376;

/** BuilderEndpoint is where a builder's BuildKit listens, parsed from `metadata.host`. */
export interface BuilderEndpoint {
  /** Hostname or IP, without brackets. */
  hostname: string;
  port: number;
  /** The buildx remote-driver endpoint, always `tcp://host:port`. */
  url: string;
  /** True when the port was not given and DEFAULT_BUILDER_PORT was assumed. */
  defaultedPort: boolean;
}

/**
 * Parses `metadata.host` in any of the forms `h`, `h:port`, `tcp://h[:port]`, `[v6]:port`.
 * Throws on anything else, naming the value.
 */
export function parseBuilderEndpoint(host: string): BuilderEndpoint {
  const raw = host.trim();
  if (raw === '') throw new Error('the builder host is empty');
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `tcp://${raw}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new Error(`the builder host "${host}" is not an address`);
  }
  if (url.protocol !== 'tcp:') throw new Error(`the builder host "${host}" uses ${url.protocol}//; expected tcp://`);
  if ((url.pathname !== '' && url.pathname !== '/') || url.search || url.hash || url.username || url.password) {
    throw new Error(`the builder host "${host}" has a path, query, fragment or user part; expected host[:port]`);
  }
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (hostname === '') throw new Error(`the builder host "${host}" has no hostname`);
  const defaultedPort = url.port === '';
  const port = defaultedPort ? DEFAULT_BUILDER_PORT : Number(url.port);
  if (port < 1 || port > 65535) throw new Error(`the builder host "${host}" has port ${port}; expected 1-65535`);
  const shown = isIP(hostname) === 6 ? `[${hostname}]` : hostname;
  return {hostname, port, url: `tcp://${shown}:${port}`, defaultedPort};
}
