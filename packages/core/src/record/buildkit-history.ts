import type {ClientHttp2Session} from 'node:http2';
import {connect as tlsConnect} from 'node:tls';
import {BinaryReader, BinaryWriter, WireType} from '@bufbuild/protobuf/wire';
import type {BuilderPems} from '../certs/cert-store.js';
import {grpcCall} from '../net/grpc-call.js';
import {builderTlsOptions} from '../lifecycle/tls-probe.js';
import {sha256} from './record-bundle.js';
import {decodeHistoryEvent, HistoryEventType, type HistoryDescriptor, type HistoryRecord} from './history-record.js';

/** A node of one of our builders, as the record's export reaches its BuildKit (mutual TLS, like buildx). */
export interface RecordNode {
  /** buildx's node name (the refs folder and the build refs name it). */
  name: string;
  hostname: string;
  port: number;
  pems: BuilderPems;
  /** The node's platforms, first the default one buildx writes into each record. */
  platforms: string[];
}

const LISTEN_HISTORY = '/moby.buildkit.v1.Control/ListenBuildHistory';
const UPDATE_HISTORY = '/moby.buildkit.v1.Control/UpdateBuildHistory';
/** containerd's content service, which BuildKit serves beside Control (what buildx's bundle export reads). */
const READ_CONTENT = '/containerd.services.content.v1.Content/Read';
/** The most a history answer may hold: one build's records are KBs. */
const MAX_HISTORY_BYTES = 16 * 1024 * 1024;
/** The most one blob may be (as the bundle reader's bound). */
const MAX_BLOB_BYTES = 512 * 1024 * 1024;

type Http2 = typeof import('node:http2');

/** An HTTP/2 session to the node's BuildKit over mutual TLS, as readiness's Control/Info reaches it. */
export async function openNodeSession(node: RecordNode): Promise<ClientHttp2Session> {
  const {connect}: Http2 = await import('node:http2');
  const session = connect(`https://${node.hostname}:${node.port}`, {
    createConnection: () => tlsConnect(builderTlsOptions(node))
  });
  // Errors reach the calls through their streams; this keeps a late one from going unhandled.
  session.on('error', () => undefined);
  return session;
}

/**
 * The three BuildKit calls `buildx history export` makes, over one session to one node: the records of a
 * ref (ListenBuildHistory with EarlyExit), the finalize of one (UpdateBuildHistory: BuildKit writes its
 * trace now), and a blob of the history's content store (containerd's Content/Read).
 */
export class BuildkitHistory {
  readonly #session: ClientHttp2Session;
  readonly #signal: AbortSignal;

  constructor(opts: {session: ClientHttp2Session; signal: AbortSignal}) {
    this.#session = opts.session;
    this.#signal = opts.signal;
  }

  /** The completed records of `ref` on this node (none when it has none). */
  async records(ref: string): Promise<HistoryRecord[]> {
    // BuildHistoryRequest: 2 Ref, 3 EarlyExit (send what exists now, then end).
    const request = refWithFlag(ref, 2, 3);
    const messages = await grpcCall(this.#session, {
      path: LISTEN_HISTORY,
      request,
      signal: this.#signal,
      maxBytes: MAX_HISTORY_BYTES
    });
    return messages
      .map(decodeHistoryEvent)
      .filter(e => e.type === HistoryEventType.Complete && e.record?.ref === ref)
      .map(e => e.record!);
  }

  /** Asks BuildKit to finalize the record of `ref` (write its trace), as `history export --finalize` does. */
  async finalize(ref: string): Promise<void> {
    // UpdateBuildHistoryRequest: 1 Ref, 4 Finalize.
    const request = refWithFlag(ref, 1, 4);
    await grpcCall(this.#session, {path: UPDATE_HISTORY, request, signal: this.#signal, maxBytes: 64 * 1024});
  }

  /** The blob `d`, whole and checked against its digest and size. */
  async blob(d: HistoryDescriptor): Promise<Buffer> {
    if (!/^sha256:[0-9a-f]{64}$/.test(d.digest))
      throw new Error(`the record names a blob "${d.digest}" that is not a sha256 digest`);
    if (d.size > BigInt(MAX_BLOB_BYTES)) throw new Error(`blob ${d.digest} is larger than ${MAX_BLOB_BYTES} bytes`);
    const size = Number(d.size);
    // ReadContentRequest: 1 digest (offset 0 and size 0: all of it).
    const request = new BinaryWriter().tag(1, WireType.LengthDelimited).string(d.digest).finish();
    const messages = await grpcCall(this.#session, {
      path: READ_CONTENT,
      request,
      signal: this.#signal,
      maxBytes: size + 64 * 1024 + 1024
    });
    const data = Buffer.alloc(size);
    let filled = 0;
    for (const m of messages) {
      const {offset, chunk} = readContentResponse(m);
      if (offset < 0 || offset + chunk.length > size)
        throw new Error(`blob ${d.digest} is larger than its ${size} bytes`);
      data.set(chunk, offset);
      filled += chunk.length;
    }
    if (filled !== size || sha256(data) !== d.digest) {
      throw new Error(`blob ${d.digest} did not arrive whole (${filled} of ${size} bytes, or another digest)`);
    }
    return data;
  }
}

/** A request of a ref (string field `refField`) and one flag set (bool field `flagField`). */
function refWithFlag(ref: string, refField: number, flagField: number): Uint8Array {
  return new BinaryWriter()
    .tag(refField, WireType.LengthDelimited)
    .string(ref)
    .tag(flagField, WireType.Varint)
    .bool(true)
    .finish();
}

/** ReadContentResponse: 1 offset (int64), 2 data; other fields skipped. */
function readContentResponse(bytes: Uint8Array): {offset: number; chunk: Uint8Array} {
  const r = new BinaryReader(bytes);
  let offset = 0;
  let chunk: Uint8Array = new Uint8Array();
  while (r.pos < r.len) {
    const [field, wire] = r.tag();
    if (field === 1 && wire === WireType.Varint) offset = Number(r.int64());
    else if (field === 2 && wire === WireType.LengthDelimited) chunk = r.bytes();
    else r.skip(wire, field);
  }
  return {offset, chunk};
}
