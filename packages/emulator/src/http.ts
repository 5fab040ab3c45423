import type {IncomingMessage, ServerResponse} from 'node:http';

/** HttpResult is a response computed by a route handler, written later by the server. */
export interface HttpResult {
  status: number;
  /** A JSON value to serialise, or a string sent verbatim. */
  body?: unknown;
  headers?: Record<string, string>;
}

/** Largest request body accepted (the emulator's choice). */
export const MAX_BODY_BYTES = 1024 * 1024;

/** A JSON response. */
export function json(status: number, body: unknown, headers?: Record<string, string>): HttpResult {
  return {status, body, headers};
}

/**
 * An error response. Spec §7.2 does not show the error body; the emulator's choice is
 * `{"error":{"code":"<snake_case>","message":"<human text>"}}`.
 */
export function apiError(status: number, code: string, message: string, headers?: Record<string, string>): HttpResult {
  return json(status, {error: {code, message}}, headers);
}

/** Writes `result`; strings go out verbatim (JSON content type when they parse as JSON, text otherwise). */
export function writeResult(res: ServerResponse, result: HttpResult): void {
  if (res.headersSent || res.destroyed) return;
  let payload = '';
  let type = 'application/json; charset=utf-8';
  if (typeof result.body === 'string') {
    payload = result.body;
    if (!isJson(payload)) type = 'text/plain; charset=utf-8';
  } else if (result.body !== undefined) {
    payload = JSON.stringify(result.body);
  }
  const headers: Record<string, string | number> = {
    'content-type': type,
    'content-length': Buffer.byteLength(payload),
    'cache-control': 'no-store'
  };
  for (const [k, v] of Object.entries(result.headers ?? {})) headers[k.toLowerCase()] = v;
  res.writeHead(result.status, headers);
  res.end(payload);
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Thrown by readBody when the body exceeds the limit. */
export class BodyTooLargeError extends Error {
  constructor(limit: number) {
    super(`Request body exceeds ${limit} bytes`);
    this.name = 'BodyTooLargeError';
  }
}

/** Reads the whole request body, up to `limit` bytes. */
export function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.resume();
        reject(new BodyTooLargeError(limit));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** True for `application/json`, with or without parameters such as charset. */
export function isJsonContentType(header: string | undefined): boolean {
  return (header ?? '').split(';')[0]?.trim().toLowerCase() === 'application/json';
}

/** Parses a JSON body; undefined when empty or invalid. */
export function parseJson(body: Buffer): unknown {
  if (body.length === 0) return undefined;
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}
