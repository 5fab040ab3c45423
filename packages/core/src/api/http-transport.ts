import * as http from 'node:http';
import * as https from 'node:https';
import type {LookupFunction, Socket} from 'node:net';
import {createSecureContext, type ConnectionOptions, type SecureContext} from 'node:tls';
import {systemClock, type Clock} from '../clock.js';
import {authority} from '../net/authority.js';
import {proxyFor, ProxyConfigError, type ProxyChoice, type ProxyEnv} from '../net/proxy-env.js';
import {ProxyError} from '../net/proxy-error.js';
import {TransportError} from '../net/transport-error.js';
import type {HttpRequest, HttpResponse, HttpTransport} from './http-types.js';
import {ProxiedRequests} from './proxied-requests.js';

export {TransportError, type TransportErrorOpts} from '../net/transport-error.js';

export type {HttpMethod, HttpRequest, HttpResponse, HttpTransport} from './http-types.js';

export interface NodeHttpTransportOpts {
  /** Largest response body accepted, in bytes (default 8 MiB). */
  maxResponseBytes?: number;
  /**
   * Where HTTPS_PROXY, HTTP_PROXY and NO_PROXY (either case) are read, at each request (default process.env).
   * See proxyFor: the official actions' rules.
   */
  env?: ProxyEnv;
  /**
   * Certificates trusted for https API URLs instead of Node's CA store. Default: that store, which includes
   * NODE_EXTRA_CA_CERTS (read by Node at start-up): the way to trust a private CA in production.
   */
  ca?: string | string[];
  /** Name resolution of direct connections (default dns.lookup); through a proxy, the proxy resolves names. */
  lookup?: LookupFunction;
  /** What measures `timeoutMs` (default the system clock). */
  clock?: Clock;
}

const DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

/**
 * NodeHttpTransport sends requests with node:http / node:https over keep-alive agents owned by this instance.
 * When the environment names a proxy for a URL (proxyFor), the request goes through undici's ProxyAgent
 * instead (ProxiedRequests): a CONNECT tunnel, TLS to the API over it for https; failures on the way are
 * ProxyErrors that name the proxy. `close()` destroys every socket; requests after close fail with ECLOSED.
 */
export class NodeHttpTransport implements HttpTransport {
  readonly #httpAgent = new http.Agent({keepAlive: true});
  readonly #httpsAgent = new https.Agent({keepAlive: true});
  readonly #proxied: ProxiedRequests;
  readonly #maxResponseBytes: number;
  readonly #env: ProxyEnv;
  readonly #ca?: string | string[];
  readonly #lookup?: LookupFunction;
  readonly #clock: Clock;
  /**
   * One TLS context for every direct https connection, made on first use from what tls.connect would make
   * one of (`ca`, else Node's CA store with NODE_EXTRA_CA_CERTS): ~0.5 ms of CPU saved on each new
   * connection, 7 of them when 8 builders' details are asked at once.
   */
  #secureContext?: SecureContext;
  #closed = false;

  constructor(opts: NodeHttpTransportOpts = {}) {
    this.#maxResponseBytes = opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.#env = opts.env ?? process.env;
    this.#ca = opts.ca;
    this.#lookup = opts.lookup;
    this.#clock = opts.clock ?? systemClock;
    this.#proxied = new ProxiedRequests({ca: opts.ca, maxResponseBytes: this.#maxResponseBytes, clock: this.#clock});
  }

  request(req: HttpRequest): Promise<HttpResponse> {
    if (this.#closed) {
      return Promise.reject(new TransportError('the HTTP transport is closed', {code: 'ECLOSED', notSent: true}));
    }
    if (req.signal?.aborted) {
      return Promise.reject(new TransportError('the request was aborted', {code: 'EABORTED', notSent: true}));
    }
    let url: URL;
    try {
      url = new URL(req.url);
    } catch (e) {
      return Promise.reject(new TransportError(`invalid URL`, {code: 'EINVALIDURL', notSent: true, cause: e}));
    }
    const secure = url.protocol === 'https:';
    if (!secure && url.protocol !== 'http:') {
      return Promise.reject(
        new TransportError(`unsupported protocol ${url.protocol}`, {code: 'EPROTOCOL', notSent: true})
      );
    }
    const target = authority(url.hostname, Number(url.port) || (secure ? 443 : 80));
    let proxy: ProxyChoice | undefined;
    try {
      proxy = proxyFor(url, this.#env);
    } catch (e) {
      if (!(e instanceof ProxyConfigError)) throw e;
      return Promise.reject(new ProxyError(e.message, {failure: 'config', code: 'EPROXYCONFIG', target, cause: e}));
    }
    const headers: Record<string, string> = {...req.headers};
    if (req.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(req.body));
    if (proxy) return this.#proxied.request({...req, headers}, url, proxy, target);
    // secureContext reaches tls.connect through the agent, as every TLS option of the request does.
    const options: https.RequestOptions & Pick<ConnectionOptions, 'secureContext'> = {
      method: req.method,
      headers,
      agent: secure ? this.#httpsAgent : this.#httpAgent,
      secureContext: secure ? (this.#secureContext ??= createSecureContext({ca: this.#ca})) : undefined,
      lookup: this.#lookup
    };
    return new Promise<HttpResponse>((resolve, reject) => {
      const cr = secure ? https.request(url, options) : http.request(url, options);
      // "connected" means bytes of this request may have reached the server; until then a failure is provably unsent.
      let connected = false;
      let settled = false;

      const cleanup = (): void => {
        settled = true;
        limit.dispose();
      };
      const fail = (code: string, message: string, cause?: unknown): void => {
        if (settled) return;
        cleanup();
        // Destroy without an error: the promise is already settled, later 'error' events are ignored.
        cr.destroy();
        reject(new TransportError(message, {code, notSent: !connected, cause}));
      };
      const limit = this.#clock.deadline(req.timeoutMs, {parents: [req.signal]});
      limit.signal.addEventListener(
        'abort',
        () =>
          limit.expired
            ? fail('ETIMEDOUT', `no answer within ${req.timeoutMs} ms`)
            : fail('EABORTED', 'the request was aborted'),
        {once: true}
      );

      cr.on('socket', (socket: Socket) => {
        if (cr.reusedSocket || !socket.connecting) {
          connected = true;
          return;
        }
        socket.once(secure ? 'secureConnect' : 'connect', () => {
          connected = true;
        });
      });
      cr.on('error', (err: NodeJS.ErrnoException) => fail(err.code ?? 'ENETWORK', err.message, err));
      cr.on('response', (res: http.IncomingMessage) => {
        connected = true;
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > this.#maxResponseBytes) {
            fail('ERESPONSETOOLARGE', `response body exceeds ${this.#maxResponseBytes} bytes`);
            return;
          }
          chunks.push(chunk);
        });
        res.on('error', (err: NodeJS.ErrnoException) => {
          fail(err.code ?? 'ECONNRESET', err.message, err);
        });
        res.on('close', () => {
          if (!res.complete) fail('ECONNRESET', 'the connection closed before the response was complete');
        });
        res.on('end', () => {
          if (settled) return;
          cleanup();
          resolve({
            status: res.statusCode ?? 0,
            headers: flattenHeaders(res.headers),
            body: Buffer.concat(chunks).toString('utf8')
          });
        });
      });

      cr.end(req.body);
    });
  }

  close(): void {
    this.#closed = true;
    this.#httpAgent.destroy();
    this.#httpsAgent.destroy();
    this.#proxied.close();
  }
}

function flattenHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}
