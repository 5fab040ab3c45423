// A gRPC client for the emulator tests: node:http2 over a builder's mutual TLS, and decoders of the answers
// of BuildKit's Control API written from its .proto files (field numbers, not the emulator's encoder).
import http2, {type ClientHttp2Session} from 'node:http2';
import tls from 'node:tls';
import {BinaryReader, WireType} from '@bufbuild/protobuf/wire';

/** The client material of a builder (its CA, client certificate and key). */
export interface ClientPems {
  ca: string;
  cert: string;
  key: string;
}

/** Opens an HTTP/2 session to 127.0.0.1:port; `alpn` defaults to ['h2'], as gRPC clients offer. */
export function openSession(port: number, pems: ClientPems, alpn: string[] = ['h2']): ClientHttp2Session {
  const session = http2.connect(`https://127.0.0.1:${port}`, {
    createConnection: () => tls.connect({host: '127.0.0.1', port, ...pems, ALPNProtocols: alpn})
  });
  session.on('error', () => undefined);
  return session;
}

/** What a unary call got: the HTTP status, grpc-status and grpc-message (headers or trailers), the message. */
export interface GrpcAnswer {
  httpStatus: number;
  contentType?: string;
  grpcStatus?: string;
  grpcMessage?: string;
  /** The answer's message without gRPC's 5-byte prefix; absent when the answer had none. */
  message?: Uint8Array;
}

/** The headers of a gRPC call to `path`, as grpc-go sends them. */
export function grpcRequestHeaders(path: string): http2.OutgoingHttpHeaders {
  return {':method': 'POST', ':path': path, 'content-type': 'application/grpc', te: 'trailers'};
}

/** Makes one unary call with an empty request message and reads the whole answer. */
export function grpcCall(session: ClientHttp2Session, path: string): Promise<GrpcAnswer> {
  return new Promise((resolve, reject) => {
    const stream = session.request(grpcRequestHeaders(path));
    const answer: GrpcAnswer = {httpStatus: 0};
    const chunks: Buffer[] = [];
    const read = (headers: http2.IncomingHttpHeaders): void => {
      answer.grpcStatus = (headers['grpc-status'] as string | undefined) ?? answer.grpcStatus;
      answer.grpcMessage = (headers['grpc-message'] as string | undefined) ?? answer.grpcMessage;
    };
    stream.on('response', headers => {
      answer.httpStatus = headers[':status'] ?? 0;
      answer.contentType = headers['content-type'];
      read(headers);
    });
    stream.on('trailers', read);
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('error', reject);
    stream.on('end', () => {
      const body = Buffer.concat(chunks);
      if (body.length > 0) {
        if (body[0] !== 0 || body.length !== 5 + body.readUInt32BE(1)) reject(new Error('not one gRPC message'));
        answer.message = body.subarray(5);
      }
      resolve(answer);
    });
    stream.end(Buffer.alloc(5)); // an empty message: not compressed, length 0
  });
}

/** The length-delimited fields of a message, in order (others skipped). */
function fields(bytes: Uint8Array): [number, Uint8Array][] {
  const reader = new BinaryReader(bytes);
  const out: [number, Uint8Array][] = [];
  while (reader.pos < reader.len) {
    const [no, wire] = reader.tag();
    if (wire === WireType.LengthDelimited) out.push([no, reader.bytes()]);
    else reader.skip(wire, no);
  }
  return out;
}

/** The string fields of a message, named by `names[fieldNumber]`. */
function strings(bytes: Uint8Array, names: Record<number, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [no, value] of fields(bytes)) {
    const name = names[no];
    if (name) out[name] = new TextDecoder().decode(value);
  }
  return out;
}

/** moby.buildkit.v1.types.BuildkitVersion: package 1, version 2, revision 3. */
const decodeVersion = (bytes: Uint8Array): Record<string, string> =>
  strings(bytes, {1: 'package', 2: 'version', 3: 'revision'});

/** moby.buildkit.v1.InfoResponse: buildkitVersion 1. */
export function decodeInfoResponse(bytes: Uint8Array): {buildkitVersion?: Record<string, string>} {
  const version = fields(bytes).find(([no]) => no === 1)?.[1];
  return version ? {buildkitVersion: decodeVersion(version)} : {};
}

export interface DecodedWorker {
  ID?: string;
  Labels: Record<string, string>;
  platforms: Record<string, string>[];
  BuildkitVersion?: Record<string, string>;
}

/**
 * moby.buildkit.v1.ListWorkersResponse: record 1, each a moby.buildkit.v1.types.WorkerRecord: ID 1,
 * Labels 2 (map entries {key 1, value 2}), platforms 3 (pb.Platform: Architecture 1, OS 2), BuildkitVersion 5.
 */
export function decodeListWorkersResponse(bytes: Uint8Array): DecodedWorker[] {
  return fields(bytes)
    .filter(([no]) => no === 1)
    .map(([, record]) => {
      const worker: DecodedWorker = {Labels: {}, platforms: []};
      for (const [no, value] of fields(record)) {
        if (no === 1) worker.ID = new TextDecoder().decode(value);
        if (no === 2) {
          const {key, value: v} = strings(value, {1: 'key', 2: 'value'});
          worker.Labels[key ?? ''] = v ?? '';
        }
        if (no === 3) worker.platforms.push(strings(value, {1: 'Architecture', 2: 'OS'}));
        if (no === 5) worker.BuildkitVersion = decodeVersion(value);
      }
      return worker;
    });
}
