import type {Dispatcher, ProxyAgent} from 'undici';
import type {Clock} from '../clock.js';
import type * as ProxyAgents from '../net/proxy-agent.js';
import type {ProxyChoice} from '../net/proxy-env.js';
import {tunnelTimeout} from '../net/proxy-failure.js';
import {TransportError} from '../net/transport-error.js';
import type {HttpRequest, HttpResponse} from './http-types.js';

export interface ProxiedRequestsOpts {
  /** Certificates trusted for https targets instead of Node's CA store. */
  ca?: string | string[];
  maxResponseBytes: number;
  /** What measures each request's `timeoutMs`. */
  clock: Clock;
}

/**
 * net/proxy-agent.js, and undici behind it (most of a bundle), loaded by the first proxied request rather than
 * at every step's start: most runners have no proxy.
 */
let proxyAgents: Promise<typeof ProxyAgents> | undefined;
const loadProxyAgents = (): Promise<typeof ProxyAgents> => (proxyAgents ??= import('../net/proxy-agent.js'));

/** One proxy's agent and the requests it carries; a retired one is destroyed once they are done. */
interface Route {
  key: string;
  agent: ProxyAgent;
  inFlight: number;
  retired: boolean;
}

/**
 * ProxiedRequests sends NodeHttpTransport's requests through a proxy with undici's ProxyAgent (one per proxy,
 * keep-alive tunnels). undici calls `onConnect` just before it writes a request, once the tunnel (and TLS)
 * is up: until then a failure is a ProxyError and provably unsent, and a request given up on before then is
 * aborted at `onConnect`, so it is never sent later. An agent whose tunnel did not open (refused, stalled,
 * timed out, aborted) is retired, which drops a CONNECT still waiting for the proxy.
 */
export class ProxiedRequests {
  readonly #routes = new Map<string, Route>();
  readonly #opts: ProxiedRequestsOpts;
  #closed = false;

  constructor(opts: ProxiedRequestsOpts) {
    this.#opts = opts;
  }

  /** `target` is the URL's host:port, for messages; `req.headers` are sent as they are. */
  async request(req: HttpRequest, url: URL, proxy: ProxyChoice, target: string): Promise<HttpResponse> {
    const agents = await loadProxyAgents();
    // Closed or aborted while the module loaded: nothing was sent.
    if (this.#closed) throw new TransportError('the HTTP transport is closed', {code: 'ECLOSED', notSent: true});
    if (req.signal?.aborted) throw new TransportError('the request was aborted', {code: 'EABORTED', notSent: true});
    const route = this.#route(proxy, agents);
    const max = this.#opts.maxResponseBytes;
    route.inFlight++;
    return new Promise<HttpResponse>((resolve, reject) => {
      let connected = false;
      let settled = false;
      let abortSent: ((e?: Error) => void) | undefined;
      let status = 0;
      let headers: Record<string, string> = {};
      const chunks: Buffer[] = [];
      let size = 0;

      const settle = (): boolean => {
        if (settled) return false;
        settled = true;
        limit.dispose();
        route.inFlight--;
        if (!connected) this.#retire(route);
        else if (route.retired && route.inFlight === 0) destroy(route);
        return true;
      };
      const fail = (error: TransportError): void => {
        if (!settle()) return;
        abortSent?.(error);
        reject(error);
      };
      const limit = this.#opts.clock.deadline(req.timeoutMs, {parents: [req.signal]});
      const onLimit = (): void => {
        if (!limit.expired) {
          return fail(new TransportError('the request was aborted', {code: 'EABORTED', notSent: !connected}));
        }
        if (!connected) return fail(tunnelTimeout(proxy, target, req.timeoutMs));
        fail(new TransportError(`no answer within ${req.timeoutMs} ms`, {code: 'ETIMEDOUT', notSent: false}));
      };
      limit.signal.addEventListener('abort', onLimit, {once: true});

      const handler: Dispatcher.DispatchHandlers = {
        onConnect: abort => {
          if (settled) return abort();
          connected = true;
          abortSent = abort;
        },
        onHeaders: (statusCode, raw) => {
          status = statusCode;
          headers = flattenRawHeaders(raw);
          return true;
        },
        onData: chunk => {
          size += chunk.length;
          if (size > max) {
            fail(new TransportError(`response body exceeds ${max} bytes`, {code: 'ERESPONSETOOLARGE', notSent: false}));
            return false;
          }
          chunks.push(chunk);
          return true;
        },
        onComplete: () => {
          if (!settle()) return;
          const res = {status, headers, body: Buffer.concat(chunks).toString('utf8')};
          // undici frees the connection a full event-loop turn after this callback (client-h1.js, pipelining 1):
          // answering sooner would let the caller's next request open a second tunnel instead of reusing this one.
          setImmediate(() => setImmediate(() => resolve(res)));
        },
        onError: err => fail(this.#failure(err, connected, proxy, url, target, agents))
      };
      try {
        const path = url.pathname + url.search;
        route.agent.dispatch(
          {origin: url.origin, path, method: req.method, headers: req.headers, body: req.body},
          handler
        );
      } catch (e) {
        fail(
          new TransportError(e instanceof Error ? e.message : String(e), {code: 'EREQUEST', notSent: true, cause: e})
        );
      }
    });
  }

  /** Destroys every agent: their tunnels, and tunnels still being opened. */
  close(): void {
    this.#closed = true;
    for (const route of this.#routes.values()) destroy(route);
    this.#routes.clear();
  }

  #failure(
    err: Error,
    connected: boolean,
    proxy: ProxyChoice,
    url: URL,
    target: string,
    agents: typeof ProxyAgents
  ): TransportError {
    if (this.#closed) return new TransportError('the HTTP transport is closed', {code: 'ECLOSED', notSent: !connected});
    if (!connected) {
      const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
      return agents.tunnelFailure(proxy, host, target, url.protocol === 'https:', err);
    }
    const code = (err as {code?: unknown}).code;
    // undici's SocketError: the service (or the proxy) closed the tunnel mid-answer.
    if (code === 'UND_ERR_SOCKET') {
      return new TransportError('the connection closed before the response was complete', {
        code: 'ECONNRESET',
        notSent: false,
        cause: err
      });
    }
    return new TransportError(err.message, {
      code: typeof code === 'string' ? code : 'ENETWORK',
      notSent: false,
      cause: err
    });
  }

  #route(proxy: ProxyChoice, agents: typeof ProxyAgents): Route {
    const key = proxy.url.href;
    let route = this.#routes.get(key);
    if (!route) {
      route = {key, agent: agents.createProxyAgent(proxy, {ca: this.#opts.ca}), inFlight: 0, retired: false};
      this.#routes.set(key, route);
    }
    return route;
  }

  #retire(route: Route): void {
    if (this.#routes.get(route.key) === route) this.#routes.delete(route.key);
    route.retired = true;
    if (route.inFlight === 0) destroy(route);
  }
}

function destroy(route: Route): void {
  void route.agent.destroy().catch(() => undefined);
}

/** undici's raw headers (name, value, …) as lower-case names, repeated headers joined with ", ". */
function flattenRawHeaders(raw: Buffer[] | string[] | null): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; raw && i + 1 < raw.length; i += 2) {
    const name = String(raw[i]).toLowerCase();
    const value = String(raw[i + 1]);
    out[name] = name in out ? `${out[name]}, ${value}` : value;
  }
  return out;
}
