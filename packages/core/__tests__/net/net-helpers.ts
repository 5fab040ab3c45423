// Shared helpers of the proxy tests: a real forward proxy (the emulator's test proxy), servers to tunnel to,
// and a port nothing listens on. Names under remote-builder.test resolve only through the proxy's host map:
// no test resolves them itself (this machine must not query DNS).
import http from 'node:http';
import https from 'node:https';
import type {AddressInfo} from 'node:net';
import {ForwardProxy, type ForwardProxyOpts} from '../../../emulator/src/testing/forward-proxy.js';
import {generateApiTls, type ApiTlsMaterial} from '../../../emulator/src/testing/api-certificate.js';
import {unusedPort} from '../../../emulator/src/builder-registry.js';

export const API_HOST = 'api.remote-builder.test';
export const BUILDER_HOST = 'builder.remote-builder.test';
export const HOSTS = {[API_HOST]: '127.0.0.1', [BUILDER_HOST]: '127.0.0.1'};

/** Things to stop after each test, last first. */
export const cleanups: (() => Promise<void> | void)[] = [];

export async function runCleanups(): Promise<void> {
  while (cleanups.length > 0) await cleanups.pop()?.();
}

export async function startProxy(opts: ForwardProxyOpts = {}): Promise<ForwardProxy> {
  const proxy = await ForwardProxy.start({hosts: HOSTS, ...opts});
  cleanups.push(() => proxy.close());
  return proxy;
}

/** A port that refuses connections, below the ephemeral range (see the emulator's unusedPort). */
export const closedPort = unusedPort;

export interface Served {
  port: number;
  /** Requests received: method, url and Host header. */
  requests: {method: string; url: string; host: string}[];
}

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

const ok: Handler = (_req, res) => {
  res.writeHead(200, {'Content-Type': 'application/json'});
  res.end('{"ok":true}');
};

/**
 * An HTTP (or, with `tls`, HTTPS) server on 127.0.0.1 that records what it gets. `keepIdle`: it never closes an
 * idle keep-alive connection (Node's default closes one after 5 s).
 */
export async function startServer(
  opts: {tls?: ApiTlsMaterial; handler?: Handler; keepIdle?: boolean} = {}
): Promise<Served> {
  const served: Served = {port: 0, requests: []};
  const handler: Handler = (req, res) => {
    served.requests.push({method: req.method ?? '', url: req.url ?? '', host: req.headers.host ?? ''});
    req.resume();
    req.on('end', () => (opts.handler ?? ok)(req, res));
  };
  const server = opts.tls
    ? https.createServer({cert: opts.tls.cert, key: opts.tls.key}, handler)
    : http.createServer(handler);
  if (opts.keepIdle) server.keepAliveTimeout = 0;
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>(resolve => {
        server.closeAllConnections();
        server.close(() => resolve());
      })
  );
  served.port = (server.address() as AddressInfo).port;
  return served;
}

let material: Promise<ApiTlsMaterial> | undefined;

/** A private CA and a certificate for API_HOST and BUILDER_HOST (made once per test file). */
export function apiTls(): Promise<ApiTlsMaterial> {
  material ??= generateApiTls({hostnames: [API_HOST, BUILDER_HOST]});
  return material;
}
