import {createHash} from 'node:crypto';
import {createWriteStream} from 'node:fs';
import {Transform} from 'node:stream';
import {pipeline} from 'node:stream/promises';
import type {Dispatcher} from 'undici';
import {systemClock, type Clock} from '../clock.js';
import {authority} from '../net/authority.js';
import {proxyFor, type ProxyChoice, type ProxyEnv} from '../net/proxy-env.js';
import {tunnelTimeout} from '../net/proxy-failure.js';
import {BuildxInstallError} from './buildx-install-error.js';
import {idleWatch} from './idle-watch.js';

export interface ReleaseHttpOpts {
  /** Proxy variables (https_proxy, no_proxy, …), read as @actions/http-client does; default process.env. */
  env?: ProxyEnv;
  /** A connection silent for this long (no tunnel, no headers, no body bytes) fails; default 60 s. */
  idleTimeoutMs?: number;
  /** What measures idleTimeoutMs (its `timer`); default the system clock. */
  clock?: Clock;
  /** Redirects followed per request (GitHub sends release assets to another host); default 5. */
  maxRedirects?: number;
}

/** One GET: what it is for (for messages), what to suggest when it fails, and a signal that stops it. */
export interface ReleaseGet {
  /** "download checksums.txt of buildx v0.19.3": the message reads "Failed to <what> from <url>: …". */
  what: string;
  /** The advice appended to an HTTP error, chosen by status (undefined: no answer arrived). */
  hint?: (status: number | undefined) => string;
  signal?: AbortSignal;
}

const MAX_TEXT_BYTES = 1 << 20;

/** undici and net/proxy-agent (most of a bundle), loaded by the first download, not at every step's start. */
const loadUndici = () => Promise.all([import('undici'), import('../net/proxy-agent.js')]);

/**
 * An answer whose body is unread: `kick` marks a chunk read (for the idle watch), `done` releases the
 * connection, `failure` names a body error.
 */
interface Opened {
  status: number;
  location?: string;
  body: Dispatcher.ResponseData['body'];
  kick: () => void;
  done: () => void;
  failure: (e: unknown) => unknown;
}

/**
 * Why a redirect from `from` to `to` is not followed, or undefined when it may be: only http(s), and never
 * from https down to plain http, where the binary and its checksums could be swapped on the way.
 */
export function refusedRedirect(from: URL, to: URL): string | undefined {
  if (to.protocol !== 'https:' && to.protocol !== 'http:') return `redirected to a ${to.protocol} URL`;
  if (from.protocol === 'https:' && to.protocol === 'http:') {
    return `redirected from https to plain http (${to.host}), which is refused`;
  }
  return undefined;
}

/**
 * ReleaseHttp is the few GETs the buildx installer needs, over undici with the runner's proxy settings (core's
 * ProxyAgent, chosen per hop so a redirect to another host is routed on its own; a proxy's refusal is worded
 * by net/proxy-failure as for the API). No retries and no sleeps: a failure throws a BuildxInstallError naming
 * the URL, the status and the fix.
 */
export class ReleaseHttp {
  private readonly env: ProxyEnv;
  private readonly idleTimeoutMs: number;
  private readonly maxRedirects: number;
  private readonly clock: Clock;

  constructor(opts: ReleaseHttpOpts = {}) {
    this.env = opts.env ?? process.env;
    this.idleTimeoutMs = opts.idleTimeoutMs ?? 60_000;
    this.maxRedirects = opts.maxRedirects ?? 5;
    this.clock = opts.clock ?? systemClock;
  }

  /** The body of a 2xx answer as text (at most 1 MiB), redirects followed. */
  async text(url: string, get: ReleaseGet): Promise<string> {
    const {body, kick, done, failure} = await this.open(url, get, true);
    try {
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of body as AsyncIterable<Buffer>) {
        kick();
        size += chunk.length;
        if (size > MAX_TEXT_BYTES) throw this.fail(url, get, undefined, `the answer is larger than 1 MiB`);
        chunks.push(chunk);
      }
      return Buffer.concat(chunks).toString('utf8');
    } catch (e) {
      throw this.wrap(url, get, failure(e));
    } finally {
      done();
    }
  }

  /** Saves the body of a 2xx answer to `dest` (redirects followed) and returns its SHA-256 (hex). */
  async download(url: string, dest: string, get: ReleaseGet): Promise<{sha256: string; bytes: number}> {
    const {body, kick, done, failure} = await this.open(url, get, true);
    const hash = createHash('sha256');
    let bytes = 0;
    const digest = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        kick();
        hash.update(chunk);
        bytes += chunk.length;
        cb(null, chunk);
      }
    });
    try {
      await pipeline(body, digest, createWriteStream(dest, {mode: 0o755}));
      return {sha256: hash.digest('hex'), bytes};
    } catch (e) {
      throw this.wrap(url, get, failure(e));
    } finally {
      done();
    }
  }

  /** The Location of a 3xx answer to `url` (absolute), not followed; e.g. GitHub's `releases/latest`. */
  async redirectTarget(url: string, get: ReleaseGet): Promise<string> {
    const {status, location, done} = await this.open(url, get, false);
    try {
      if (!location) throw this.fail(url, get, status, 'the answer has no Location');
      return new URL(location, url).href;
    } finally {
      done();
    }
  }

  /** A 2xx answer (or, with follow false, a 3xx), its body unread; `done` releases the connection. */
  private async open(url: string, get: ReleaseGet, follow: boolean): Promise<Opened> {
    let current = new URL(url);
    for (let hop = 0; ; hop++) {
      const opened = await this.request(url, current, get);
      const {status, location, done} = opened;
      const redirect = status >= 300 && status < 400 && location !== undefined;
      if (redirect && !follow) return opened;
      if (redirect && follow) {
        done();
        if (hop >= this.maxRedirects) throw this.fail(url, get, status, `more than ${this.maxRedirects} redirects`);
        const from = current;
        current = new URL(location, current);
        const refused = refusedRedirect(from, current);
        if (refused) throw this.fail(url, get, status, refused);
        continue;
      }
      if (status >= 200 && status < 300 && follow) return opened;
      done();
      const via = current.href === url ? '' : ` (redirected to ${current.host})`;
      throw this.fail(url, get, status, `HTTP ${status}${via}`);
    }
  }

  /** One GET of `target` (`url` or where it redirected), its body unread; undici's timeouts are off for the watch's. */
  private async request(url: string, target: URL, get: ReleaseGet): Promise<Opened> {
    let proxy: ProxyChoice | undefined;
    try {
      proxy = proxyFor(target, this.env);
    } catch (e) {
      throw this.wrap(url, get, e);
    }
    const [{Agent}, {createProxyAgent, tunnelFailure}] = await loadUndici();
    const ms = this.idleTimeoutMs;
    const stall = `no data for ${ms} ms`;
    // Ends the request: the step's signal, or the idle watch.
    const stop = new AbortController();
    let idle = false;
    let connected = false;
    const watch = idleWatch(this.clock, ms, () => {
      idle = true;
      stop.abort(new Error(stall));
    });
    const cancel = (): void => stop.abort(get.signal?.reason);
    get.signal?.addEventListener('abort', cancel, {once: true});
    if (get.signal?.aborted) cancel();
    // One dispatcher per hop, destroyed with it (a CONNECT still waiting for the proxy too).
    const dispatcher = proxy ? createProxyAgent(proxy) : new Agent();
    let body: Opened['body'] | undefined;
    const done = (): void => {
      watch.stop();
      get.signal?.removeEventListener('abort', cancel);
      body?.destroy();
      void dispatcher.destroy().catch(() => undefined);
    };
    const failure = (e: unknown): unknown => {
      if (get.signal?.aborted) return e;
      if (proxy && !connected) {
        // Nothing reached the target: the proxy's failure, worded as for the API.
        const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
        const secure = target.protocol === 'https:';
        const to = authority(host, Number(target.port) || (secure ? 443 : 80));
        return idle ? tunnelTimeout(proxy, to, ms) : tunnelFailure(proxy, host, to, secure, e);
      }
      if (idle) return new Error(stall);
      // undici's SocketError ("other side closed"), or a reset seen first: the server hung up mid-answer.
      const code = (e as {code?: unknown}).code;
      if (code !== 'UND_ERR_SOCKET' && code !== 'ECONNRESET') return e;
      return Object.assign(new Error('the connection closed before the answer was complete'), {code: 'ECONNRESET'});
    };
    try {
      // Settles the moment `stop` aborts, even while undici still waits for the connection.
      const answer = await this.clock.deadline(undefined, {parents: [stop.signal]}).run(() =>
        dispatcher
          .compose(
            onConnect(() => {
              connected = true;
              watch.kick();
            })
          )
          .request({
            origin: target.origin,
            path: target.pathname + target.search,
            method: 'GET',
            headers: {'user-agent': 'remote-builder-actions', accept: '*/*'},
            signal: stop.signal,
            headersTimeout: 0,
            bodyTimeout: 0
          })
      );
      watch.kick();
      // A body cut by done() or the watch errors; its reader, if any, sees that error too.
      body = answer.body.on('error', () => undefined);
      const location = answer.headers.location;
      return {
        status: answer.statusCode,
        location: Array.isArray(location) ? location[0] : location,
        body,
        kick: watch.kick,
        done,
        failure
      };
    } catch (e) {
      done();
      throw this.wrap(url, get, failure(e));
    }
  }

  private wrap(url: string, get: ReleaseGet, e: unknown): BuildxInstallError {
    if (e instanceof BuildxInstallError) return e;
    if (get.signal?.aborted) {
      return new BuildxInstallError(`Failed to ${get.what} from ${url}: cancelled`, {
        failure: 'network',
        url,
        cause: e
      });
    }
    const err = e as NodeJS.ErrnoException;
    const why = [err.code, err.message].filter(Boolean).join(' ');
    return this.fail(url, get, undefined, why || String(e), e);
  }

  private fail(
    url: string,
    get: ReleaseGet,
    status: number | undefined,
    why: string,
    cause?: unknown
  ): BuildxInstallError {
    const hint = get.hint?.(status);
    return new BuildxInstallError(`Failed to ${get.what} from ${url}: ${why}${hint ? ` (${hint})` : ''}`, {
      failure: status === undefined ? 'network' : 'http',
      url,
      status,
      cause
    });
  }
}

/** An undici interceptor calling `connected` once a request's connection (through a proxy: tunnel and TLS) is up. */
function onConnect(connected: () => void): Dispatcher.DispatcherComposeInterceptor {
  return dispatch => (opts, handler) => {
    const next = handler.onConnect?.bind(handler);
    handler.onConnect = (...args) => {
      connected();
      next?.(...args);
    };
    return dispatch(opts, handler);
  };
}
