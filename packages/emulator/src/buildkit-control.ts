import {createHash, randomBytes} from 'node:crypto';
import http2, {type IncomingHttpHeaders, type ServerHttp2Stream} from 'node:http2';
import type {Duplex} from 'node:stream';
import {BinaryWriter, WireType} from '@bufbuild/protobuf/wire';
import type {BuildkitBackend} from './buildkit-backend.js';
import type {BuilderArch} from './pricing.js';

/** The version builders report unless told otherwise (also the fake docker's default `BuildKit version:`). */
export const DEFAULT_BUILDKIT_VERSION = 'v0.13.2';

/** BuildKit's gRPC service for clients (buildx), api/services/control/control.proto. */
const CONTROL_SERVICE = 'moby.buildkit.v1.Control';
export const CONTROL_INFO_PATH = `/${CONTROL_SERVICE}/Info`;
export const CONTROL_LIST_WORKERS_PATH = `/${CONTROL_SERVICE}/ListWorkers`;

/** gRPC status codes used here (https://grpc.github.io/grpc/core/md_doc_statuscodes.html). */
const GRPC_STATUS = {ok: 0, unimplemented: 12} as const;

export interface ControlApiBackendOpts {
  /** The builder's architecture(s); ListWorkers reports a linux platform for each. */
  arch: BuilderArch;
  /** What Info and ListWorkers report as BuildKit's version; default DEFAULT_BUILDKIT_VERSION. '' sends none. */
  version?: string;
  /** false: Info answers UNIMPLEMENTED, as BuildKit < 0.11 did (it had no Info method). Default true. */
  info?: boolean;
}

/**
 * ControlApiBackend serves each connection as BuildKit's gRPC server does (h2c over the decrypted stream):
 * `moby.buildkit.v1.Control/Info` and `/ListWorkers` answer as buildkitd would; every other call gets
 * UNIMPLEMENTED (a real build needs DockerGrpcBackend). The server's SETTINGS frame goes out at once, as
 * grpc-go's does, so readiness probes see a BuildKit.
 *
 * Clients that leave, reset the connection or cancel a call cost nothing: errors end the connection or the
 * call, never the emulator.
 */
export class ControlApiBackend implements BuildkitBackend {
  readonly kind = 'control-api';
  readonly #answers: ReadonlyMap<string, Uint8Array>;

  constructor(opts: ControlApiBackendOpts) {
    const version = buildkitVersion(opts.version ?? DEFAULT_BUILDKIT_VERSION);
    const answers = new Map<string, Uint8Array>([[CONTROL_LIST_WORKERS_PATH, listWorkersResponse(opts.arch, version)]]);
    if (opts.info !== false) answers.set(CONTROL_INFO_PATH, infoResponse(version));
    this.#answers = answers;
  }

  serve(client: Duplex): void {
    // Not a server's 'connection' event: that refuses TLS sockets without ALPN h2, which grpc-go before
    // 1.67 (BuildKit ≤ v0.18, go.mod) served all the same.
    const session = http2.performServerHandshake(client);
    // Bytes that are not HTTP/2, a reset: node destroys the session and its socket, and reports it here.
    session.on('error', () => undefined);
    session.on('stream', (stream, headers) => this.#call(stream, headers));
  }

  #call(stream: ServerHttp2Stream, headers: IncomingHttpHeaders): void {
    // A reset or cancelled call ends here; the session goes on.
    stream.on('error', () => undefined);
    const path = headers[':path'] ?? '';
    const answer = this.#answers.get(path);
    if (!answer) return void answerStatus(stream, GRPC_STATUS.unimplemented, unimplementedMessage(path));
    // A unary call: the answer follows the whole request (whose content is not needed).
    stream.resume();
    stream.once('end', () => answerMessage(stream, answer));
  }
}

/** What grpc-go says for a call it has no handler for (server.go, handleStream). */
function unimplementedMessage(path: string): string {
  const name = path.replace(/^\//, '');
  const at = name.lastIndexOf('/');
  if (at < 0) return `malformed method name: ${JSON.stringify(path)}`;
  const service = name.slice(0, at);
  return service === CONTROL_SERVICE
    ? `unknown method ${name.slice(at + 1)} for service ${service}`
    : `unknown service ${service}`;
}

/** A trailers-only answer: the status in the response headers, no message. */
function answerStatus(stream: ServerHttp2Stream, status: number, message: string): void {
  if (stream.destroyed || stream.closed) return;
  stream.respond(
    {
      ':status': 200,
      'content-type': 'application/grpc',
      'grpc-status': String(status),
      'grpc-message': percentEncode(message)
    },
    {endStream: true}
  );
}

/** Headers, one length-prefixed message, then trailers with status OK. */
function answerMessage(stream: ServerHttp2Stream, message: Uint8Array): void {
  if (stream.destroyed || stream.closed) return;
  stream.respond({':status': 200, 'content-type': 'application/grpc'}, {waitForTrailers: true});
  stream.once('wantTrailers', () => stream.sendTrailers({'grpc-status': String(GRPC_STATUS.ok)}));
  const prefix = Buffer.alloc(5); // not compressed (0), then the length, big-endian
  prefix.writeUInt32BE(message.length, 1);
  stream.end(Buffer.concat([prefix, message]));
}

/** grpc-message's encoding: bytes outside printable ASCII, and '%', as %XX (gRPC over HTTP/2 spec). */
function percentEncode(text: string): string {
  return Array.from(Buffer.from(text, 'utf8'), b =>
    b >= 0x20 && b <= 0x7e && b !== 0x25 ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`
  ).join('');
}

/*
 * Messages, as in BuildKit's .proto files at v0.13.2 and v0.32.2 (the newest tag when written); the fields
 * used here are the same in both:
 * - control.proto (package moby.buildkit.v1): InfoResponse {BuildkitVersion buildkitVersion = 1},
 *   ListWorkersResponse {repeated WorkerRecord record = 1};
 * - api/types/worker.proto (moby.buildkit.v1.types): WorkerRecord {string ID = 1; map<string,string> Labels = 2;
 *   repeated pb.Platform platforms = 3; ...; BuildkitVersion BuildkitVersion = 5}, BuildkitVersion
 *   {string package = 1; string version = 2; string revision = 3} (v0.32 adds dockerfileVersion = 4, left out);
 * - solver/pb/ops.proto (pb): Platform {string Architecture = 1; string OS = 2; ...}.
 * Empty strings are left out, as proto3 encoders do.
 */

type Writer = BinaryWriter;

/** Writes a string field unless it is empty. */
function stringField(w: Writer, field: number, value: string): Writer {
  return value === '' ? w : w.tag(field, WireType.LengthDelimited).string(value);
}

/** Writes a message field whose content `body` writes. */
function messageField(w: Writer, field: number, body: (w: Writer) => void): Writer {
  w.tag(field, WireType.LengthDelimited).fork();
  body(w);
  return w.join();
}

/** BuildkitVersion's fields, as buildkitd fills them from its build (version/version.go). */
function buildkitVersion(version: string): (w: Writer) => void {
  // A real build's revision is its git commit; this one is 40 hex digits derived from the version.
  const revision = version === '' ? '' : createHash('sha1').update(`moby/buildkit ${version}`).digest('hex');
  return w => {
    stringField(w, 1, 'github.com/moby/buildkit');
    stringField(w, 2, version);
    stringField(w, 3, revision);
  };
}

function infoResponse(version: (w: Writer) => void): Uint8Array {
  return messageField(new BinaryWriter(), 1, version).finish();
}

/** One OCI worker, as buildkitd's default worker (worker/runc, labels from worker/label). */
function listWorkersResponse(arch: BuilderArch, version: (w: Writer) => void): Uint8Array {
  const labels: Record<string, string> = {
    'org.mobyproject.buildkit.worker.executor': 'oci',
    'org.mobyproject.buildkit.worker.hostname': 'remote-builder-emulator',
    'org.mobyproject.buildkit.worker.network': 'host',
    'org.mobyproject.buildkit.worker.oci.process-mode': 'sandbox',
    'org.mobyproject.buildkit.worker.selinux.enabled': 'false',
    'org.mobyproject.buildkit.worker.snapshotter': 'overlayfs'
  };
  const worker = (w: Writer): void => {
    stringField(w, 1, workerId());
    for (const [key, value] of Object.entries(labels)) {
      // A map entry is a message {key = 1, value = 2}.
      messageField(w, 2, e => stringField(stringField(e, 1, key), 2, value));
    }
    for (const architecture of arch.split(',')) {
      messageField(w, 3, p => stringField(stringField(p, 1, architecture), 2, 'linux'));
    }
    messageField(w, 5, version);
  };
  return messageField(new BinaryWriter(), 1, worker).finish();
}

/** A worker ID as buildkitd makes one (identity.NewID: 128 random bits in base 36, 25 characters). */
function workerId(): string {
  return BigInt(`0x${randomBytes(16).toString('hex')}`)
    .toString(36)
    .padStart(25, '0');
}
