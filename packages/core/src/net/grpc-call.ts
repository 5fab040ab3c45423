import type {ClientHttp2Session} from 'node:http2';
import {errorMessage} from '../errors.js';

/**
 * One gRPC call over an open HTTP/2 session (unary or server-streaming: the request is one message, the
 * answer any number), as grpc-go frames it: each message a 5-byte prefix (compression flag 0, big-endian
 * length) and its protobuf bytes; the status in the trailers (or in the headers of a trailers-only answer).
 */
export interface GrpcCallOpts {
  /** `/<package>.<Service>/<Method>`. */
  path: string;
  /** The request message, protobuf-encoded. */
  request: Uint8Array;
  signal: AbortSignal;
  /** The most answer bytes read (prefixes included); past it the call fails. */
  maxBytes: number;
}

/** A call that ended with a gRPC status other than OK (https://grpc.github.io/grpc/core/md_doc_statuscodes.html). */
export class GrpcStatusError extends Error {
  readonly code: number;
  constructor(path: string, code: number, message: string | undefined) {
    super(`${path} answered gRPC status ${code}${message ? ` (${message})` : ''}`);
    this.code = code;
  }
}

/** gRPC status codes this client tells apart. */
export const GrpcCode = {NotFound: 5, Unimplemented: 12} as const;

/** The answer's messages, in order; throws GrpcStatusError for a status other than OK, Error for the rest. */
export function grpcCall(session: ClientHttp2Session, opts: GrpcCallOpts): Promise<Uint8Array[]> {
  return new Promise<Uint8Array[]>((resolve, reject) => {
    const stream = session.request(
      {':method': 'POST', ':path': opts.path, 'content-type': 'application/grpc', te: 'trailers'},
      {signal: opts.signal}
    );
    const chunks: Buffer[] = [];
    let size = 0;
    let status: string | undefined;
    let message: string | undefined;
    let settled = false;
    const fail = (e: Error): void => {
      if (settled) return;
      settled = true;
      reject(e);
      stream.destroy();
    };
    stream.on('response', headers => {
      // Node gives :status as a number, whatever its header type says.
      const code = Number(headers[':status']);
      if (code !== 200) return fail(new Error(`${opts.path} answered HTTP status ${code}`));
      status = headerText(headers['grpc-status']);
      message = headerText(headers['grpc-message']);
    });
    stream.on('trailers', trailers => {
      status = headerText(trailers['grpc-status']) ?? status;
      message = headerText(trailers['grpc-message']) ?? message;
    });
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > opts.maxBytes) return fail(new Error(`${opts.path} answered more than ${opts.maxBytes} bytes`));
      chunks.push(chunk);
    });
    stream.on('error', e => fail(new Error(`${opts.path} failed: ${errorMessage(e)}`)));
    // A stream the session drops (a reset connection, a refused certificate) closes without 'end'.
    stream.on('close', () => fail(new Error(`${opts.path}: the stream closed (code ${stream.rstCode ?? 'none'})`)));
    stream.on('end', () => {
      if (settled) return;
      if (status === undefined) return fail(new Error(`${opts.path} answered no grpc-status`));
      if (status !== '0') return fail(new GrpcStatusError(opts.path, Number(status), decodeMessage(message)));
      try {
        const messages = grpcMessages(Buffer.concat(chunks));
        settled = true;
        resolve(messages);
      } catch (e) {
        fail(new Error(`${opts.path}: ${errorMessage(e)}`));
      }
    });
    stream.end(grpcFrame(opts.request));
  });
}

/** `message` with gRPC's 5-byte prefix: not compressed, its length. */
export function grpcFrame(message: Uint8Array): Buffer {
  const frame = Buffer.alloc(5 + message.length);
  frame.writeUInt32BE(message.length, 1);
  frame.set(message, 5);
  return frame;
}

/** The messages of an answer's body, each without its prefix; throws on a compressed or truncated one. */
export function grpcMessages(body: Buffer): Uint8Array[] {
  const out: Uint8Array[] = [];
  let at = 0;
  while (at < body.length) {
    if (body.length - at < 5) throw new Error('a truncated gRPC message prefix');
    if (body[at] !== 0) throw new Error('a compressed gRPC message, which was not asked for');
    const length = body.readUInt32BE(at + 1);
    if (body.length - at - 5 < length) throw new Error('a truncated gRPC message');
    out.push(body.subarray(at + 5, at + 5 + length));
    at += 5 + length;
  }
  return out;
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** grpc-message is percent-encoded; a malformed one is shown as sent. */
function decodeMessage(message: string | undefined): string | undefined {
  if (message === undefined) return undefined;
  try {
    return decodeURIComponent(message);
  } catch {
    return message;
  }
}
