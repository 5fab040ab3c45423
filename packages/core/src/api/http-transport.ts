import * as http from 'node:http';
import * as https from 'node:https';
import type {Socket} from 'node:net';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** HttpRequest is one request as the transport sends it; `timeoutMs` covers connect, request and the whole response. */
export interface HttpRequest {
  method: HttpMethod;
  url: string;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
  signal?: AbortSignal;
}

/** HttpResponse is a complete response; header names are lower-case, repeated headers are joined with ", ". */
export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** HttpTransport is the seam between the API client and the network; tests replace it with a fake. */
export interface HttpTransport {
  /** Resolves with any HTTP status; rejects with a TransportError when no complete response arrived. */
  request(req: HttpRequest): Promise<HttpResponse>;
  /** Releases every socket so nothing keeps the process alive. */
  close(): void;
}

export interface TransportErrorOpts {
  /** ECONNREFUSED, ECONNRESET, ETIMEDOUT (our timeout), EABORTED, ENOTFOUND, ECLOSED, … */
  code: string;
  /** True only when the request provably never left this process (no connection was established). */
  notSent: boolean;
  cause?: unknown;
}

/** TransportError is a request that got no complete response. */
export class TransportError extends Error {
  readonly code: string;
  readonly notSent: boolean;

  constructor(message: string, opts: TransportErrorOpts) {
    super(message, {cause: opts.cause});
    this.name = 'TransportError';
    this.code = opts.code;
    this.notSent = opts.notSent;
  }
}

export interface NodeHttpTransportOpts {
  /** Largest response body accepted, in bytes (default 8 MiB). */
  maxResponseBytes?: number;
}

const DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

/**
 * NodeHttpTransport sends requests with node:http / node:https over keep-alive agents owned by this instance.
 * `close()` destroys the agents' sockets; requests after close fail with ECLOSED.
 */
export class NodeHttpTransport implements HttpTransport {
  readonly #httpAgent = new http.Agent({keepAlive: true});
  readonly #httpsAgent = new https.Agent({keepAlive: true});
  readonly #maxResponseBytes: number;
  #closed = false;

  constructor(opts: NodeHttpTransportOpts = {}) {
    this.#maxResponseBytes = opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
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
    const headers: Record<string, string> = {...req.headers};
    if (req.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(req.body));
    const options: http.RequestOptions = {
      method: req.method,
      headers,
      agent: secure ? this.#httpsAgent : this.#httpAgent
    };
    return new Promise<HttpResponse>((resolve, reject) => {
      const cr = secure ? https.request(url, options) : http.request(url, options);
      // "connected" means bytes of this request may have reached the server; until then a failure is provably unsent.
      let connected = false;
      let settled = false;

      const cleanup = (): void => {
        settled = true;
        clearTimeout(timer);
        req.signal?.removeEventListener('abort', onAbort);
      };
      const fail = (code: string, message: string, cause?: unknown): void => {
        if (settled) return;
        cleanup();
        // Destroy without an error: the promise is already settled, later 'error' events are ignored.
        cr.destroy();
        reject(new TransportError(message, {code, notSent: !connected, cause}));
      };
      const onAbort = (): void => fail('EABORTED', 'the request was aborted');
      const timer = setTimeout(() => fail('ETIMEDOUT', `no answer within ${req.timeoutMs} ms`), req.timeoutMs);
      req.signal?.addEventListener('abort', onAbort, {once: true});

      cr.on('socket', (socket: Socket) => {
        if (cr.reusedSocket || !socket.connecting) {
          connected = true;
          return;
        }
        socket.once(secure ? 'secureConnect' : 'connect', () => {
          connected = true;
        });
      });
      cr.on('error', (err: NodeJS.ErrnoException) => {
        fail(err.code ?? 'ENETWORK', err.message, err);
      });
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
