import {createHash} from 'node:crypto';
import {createWriteStream} from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import {Transform} from 'node:stream';
import {pipeline} from 'node:stream/promises';
import {proxyFor, type ProxyEnv} from '../net/proxy-env.js';
import {HttpsTunnelAgent, HttpTunnelAgent} from '../net/tunnel-agent.js';
import {BuildxInstallError} from './buildx-install-error.js';

export interface ReleaseHttpOpts {
  /** Proxy variables (https_proxy, no_proxy, …), read as @actions/http-client does; default process.env. */
  env?: ProxyEnv;
  /** A connection silent for this long (no headers, no body bytes) fails; default 60 s. */
  idleTimeoutMs?: number;
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

/** An answer whose body is unread: `done` releases the connection, `failure` names a body error. */
interface Opened {
  res: http.IncomingMessage;
  done: () => void;
  failure: (e: unknown) => unknown;
}

/**
 * ReleaseHttp is the few GETs the buildx installer needs, over node:http(s) with the runner's proxy settings
 * (core's proxy-aware tunnel agents, chosen per hop so a redirect to another host is routed on its own).
 * No retries and no sleeps: a failure throws a BuildxInstallError naming the URL, the status and the fix.
 */
export class ReleaseHttp {
  private readonly env: ProxyEnv;
  private readonly idleTimeoutMs: number;
  private readonly maxRedirects: number;

  constructor(opts: ReleaseHttpOpts = {}) {
    this.env = opts.env ?? process.env;
    this.idleTimeoutMs = opts.idleTimeoutMs ?? 60_000;
    this.maxRedirects = opts.maxRedirects ?? 5;
  }

  /** The body of a 2xx answer as text (at most 1 MiB), redirects followed. */
  async text(url: string, get: ReleaseGet): Promise<string> {
    const {res, done, failure} = await this.open(url, get, true);
    try {
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res as AsyncIterable<Buffer>) {
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
    const {res, done, failure} = await this.open(url, get, true);
    const hash = createHash('sha256');
    let bytes = 0;
    const digest = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        hash.update(chunk);
        bytes += chunk.length;
        cb(null, chunk);
      }
    });
    try {
      await pipeline(res, digest, createWriteStream(dest, {mode: 0o755}));
      return {sha256: hash.digest('hex'), bytes};
    } catch (e) {
      throw this.wrap(url, get, failure(e));
    } finally {
      done();
    }
  }

  /** The Location of a 3xx answer to `url` (absolute), not followed; e.g. GitHub's `releases/latest`. */
  async redirectTarget(url: string, get: ReleaseGet): Promise<string> {
    const {res, done} = await this.open(url, get, false);
    try {
      res.resume();
      const location = res.headers.location;
      if (!location) throw this.fail(url, get, res.statusCode, 'the answer has no Location');
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
      const {res, done} = opened;
      const status = res.statusCode ?? 0;
      const location = res.headers.location;
      const redirect = status >= 300 && status < 400 && location !== undefined;
      if (redirect && !follow) return opened;
      if (redirect && follow) {
        res.resume();
        done();
        if (hop >= this.maxRedirects) throw this.fail(url, get, status, `more than ${this.maxRedirects} redirects`);
        current = new URL(location, current);
        if (current.protocol !== 'https:' && current.protocol !== 'http:') {
          throw this.fail(url, get, status, `redirected to a ${current.protocol} URL`);
        }
        continue;
      }
      if (status >= 200 && status < 300 && follow) return opened;
      res.resume();
      done();
      const via = current.href === url ? '' : ` (redirected to ${current.host})`;
      throw this.fail(url, get, status, `HTTP ${status}${via}`);
    }
  }

  private request(url: string, target: URL, get: ReleaseGet): Promise<Opened> {
    const secure = target.protocol === 'https:';
    let agent: http.Agent | undefined;
    try {
      const proxy = proxyFor(target, this.env);
      if (proxy) agent = secure ? new HttpsTunnelAgent({proxy}) : new HttpTunnelAgent({proxy});
    } catch (e) {
      return Promise.reject(this.wrap(url, get, e));
    }
    return new Promise((resolve, reject) => {
      const stall = `no data for ${this.idleTimeoutMs} ms`;
      let timedOut = false;
      const req = (secure ? https : http).get(target, {
        agent,
        headers: {'user-agent': 'remote-builder-actions', accept: '*/*'},
        signal: get.signal
      });
      const done = (): void => {
        req.destroy();
        agent?.destroy();
      };
      // Socket idle time: covers both a server that never answers and a body that stops mid-way.
      req.setTimeout(this.idleTimeoutMs, () => {
        timedOut = true;
        req.destroy(new Error(stall));
      });
      req.on('response', res => {
        // A body cut by the timeout fails with "aborted": report the stall instead.
        res.on('error', () => undefined);
        resolve({res, done, failure: e => (timedOut ? new Error(stall) : e)});
      });
      req.on('error', e => {
        done();
        reject(this.wrap(url, get, timedOut ? new Error(stall) : e));
      });
    });
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
