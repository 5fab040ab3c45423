import type {ClientHttp2Session} from 'node:http2';
import {readFileSync} from 'node:fs';
import {join} from 'node:path';
import {goJson, goMap, type GoValue} from './go-json.js';
import {BuildkitHistory, openNodeSession, type RecordNode} from './buildkit-history.js';
import type {HistoryDescriptor, HistoryRecord} from './history-record.js';
import {historyRecordJson, type LocalState, type StateGroup} from './history-record-json.js';
import {
  HISTORY_RECORD_MEDIA_TYPE,
  HISTORY_REFERENCE_ANNOTATION,
  MANIFEST_MEDIA_TYPE,
  sha256,
  type Descriptor,
  type RecordBundle
} from './record-bundle.js';
import {sanitizeTrace} from './record-trace.js';

/** The annotation buildx keeps a result's own media type in (its layer is typed application/json). */
const REF_DESCRIPTOR_MEDIA_TYPE = 'vnd.export-build.descriptor.mediatype';

export interface GrpcRecordExportOpts {
  /** The buildx builder (its refs folder holds the builds' local state). */
  builder: string;
  nodes: RecordNode[];
  /** Bare history refs, in the order the file lists them. */
  refs: string[];
  /** buildx's config dir: `<it>/refs/<builder>/<node>/<ref>` is a build's local state. */
  configDir: string;
  signal: AbortSignal;
  /**
   * Called when records still have no trace after their finalize (a BuildKit without it): resolves when the
   * trace should be written (the caller's bounded wait), and the records are asked for again.
   */
  settle: () => Promise<void>;
  /** Opens a session to a node (default: HTTP/2 over mutual TLS, openNodeSession). */
  open?: (node: RecordNode) => Promise<ClientHttp2Session>;
}

export interface GrpcRecordExport {
  bundle: RecordBundle;
  /** Each record in the file: its ref and the node it was built on. */
  records: {ref: string; node: string}[];
  /** Refs no node had a completed record of. */
  missing: string[];
}

/** Every node answered, and none had a completed record of any ref (history off, or records deleted). */
export class NoRecordError extends Error {}

/** How a step reads its records from BuildKit directly (exportRecordsGrpc; tests inject their own). */
export type DirectRecordExport = (opts: GrpcRecordExportOpts) => Promise<GrpcRecordExport>;

interface NodeRecord {
  node: RecordNode;
  history: BuildkitHistory;
  record: HistoryRecord;
}

/**
 * `buildx history export --finalize <refs…>` without buildx: the records of `refs` read from every node's
 * BuildKit over our own gRPC client (a record without its trace finalized first), their blobs read from
 * BuildKit's content store, and the bundle put together as buildx's util/desktop/bundle does (record JSON,
 * sanitised trace, layers in buildx's order). Spares the step buildx's start and its builder loading, which
 * were most of the export's time. Throws when no record can be had or a call fails; the caller falls back
 * to buildx.
 */
export async function exportRecordsGrpc(opts: GrpcRecordExportOpts): Promise<GrpcRecordExport> {
  const open = opts.open ?? openNodeSession;
  const sessions: ClientHttp2Session[] = [];
  try {
    // Every session opened is closed below, also when another one failed to open.
    const opened = await Promise.allSettled(opts.nodes.map(node => open(node)));
    for (const o of opened) if (o.status === 'fulfilled') sessions.push(o.value);
    const failed = opened.find(o => o.status === 'rejected');
    if (failed) throw failed.reason;
    const histories = opts.nodes.map((node, i) => ({
      node,
      history: new BuildkitHistory({
        session: (opened[i] as PromiseFulfilledResult<ClientHttp2Session>).value,
        signal: opts.signal
      })
    }));
    const query = async (ref: string): Promise<NodeRecord[]> =>
      (
        await Promise.all(histories.map(async h => (await h.history.records(ref)).map(record => ({...h, record}))))
      ).flat();
    let found = await Promise.all(opts.refs.map(query));
    const untraced = (): NodeRecord[] => found.flat().filter(r => r.record.trace === undefined);
    if (untraced().length > 0) {
      await Promise.all(untraced().map(r => r.history.finalize(r.record.ref)));
      found = await Promise.all(opts.refs.map(query));
      if (untraced().length > 0) {
        await opts.settle();
        found = await Promise.all(opts.refs.map(query));
      }
    }
    const missing = opts.refs.filter((_, i) => found[i]!.length === 0);
    // As buildx orders them: by ref as asked, then the newest first.
    const ordered = found.flatMap(rs => [...rs].sort((a, b) => compareTime(b.record, a.record)));
    if (ordered.length === 0) throw new NoRecordError(`no record found for ${refList(opts.refs)}`);
    const blobs = new Map<string, Buffer>();
    // The records' blobs are read at once (Promise.all keeps their order).
    const records = await Promise.all(ordered.map(r => recordManifest(r, opts, blobs)));
    return {
      bundle: {blobs, records},
      records: ordered.map(r => ({ref: r.record.ref, node: r.node.name})),
      missing
    };
  } finally {
    for (const s of sessions) s.destroy();
  }
}

/** One record's manifest (and its blobs into `blobs`), as buildx's exportRecord writes it. */
async function recordManifest(
  r: NodeRecord,
  opts: GrpcRecordExportOpts,
  blobs: Map<string, Buffer>
): Promise<Descriptor> {
  const {record, history, node} = r;
  const visited = new Set<string>();
  const fresh = (d: HistoryDescriptor | undefined): d is HistoryDescriptor => {
    if (d === undefined || visited.has(d.digest)) return false;
    visited.add(d.digest);
    return true;
  };
  // Every blob is asked for at once, the trace with the others; the config names the sanitised trace, so it is
  // written once that has come.
  const rawTrace = fresh(record.trace) ? history.blob(record.trace) : undefined;
  const layers: Layer[] = [];
  const reads: Promise<void>[] = [];
  const add = (d: HistoryDescriptor, layer: Layer = ociDescriptor(d)): void => {
    layers.push(layer);
    reads.push(history.blob(d).then(data => void blobs.set(d.digest, data)));
  };
  if (fresh(record.logs)) add(record.logs);
  const results = (res: HistoryRecord['result']): void => {
    if (!res) return;
    for (const a of res.attestations) if (fresh(a)) add(a);
    for (const [, d] of byKey(res.results)) {
      if (!fresh(d)) continue;
      const annotations: [string, string][] = [...d.annotations, [REF_DESCRIPTOR_MEDIA_TYPE, d.mediaType]];
      add(d, {mediaType: 'application/json', digest: d.digest, size: d.size, annotations});
    }
  };
  results(record.result);
  if (fresh(record.externalError)) add(record.externalError);
  for (const [, res] of byKey(record.results)) results(res);
  const [traceData] = await Promise.all([rawTrace, Promise.all(reads)]);

  let traced = record;
  if (traceData !== undefined && record.trace) {
    const trace = sanitizeTrace(traceData);
    const digest = sha256(trace);
    blobs.set(digest, trace);
    // buildx lists the trace first.
    layers.unshift({mediaType: record.trace.mediaType, digest, size: BigInt(trace.length)});
    traced = {...record, trace: {...record.trace, digest, size: BigInt(trace.length)}};
  }
  const state = localState(opts.configDir, opts.builder, node.name, record.ref);
  const config = Buffer.from(
    goJson(
      historyRecordJson(traced, {
        defaultPlatform: node.platforms[0] ?? '',
        localState: state?.state,
        stateGroup: state?.group
      }),
      '  '
    )
  );
  const configDigest = sha256(config);
  blobs.set(configDigest, config);

  const manifest = Buffer.from(
    goJson(
      new Map<string, GoValue>([
        ['schemaVersion', 2],
        ['mediaType', MANIFEST_MEDIA_TYPE],
        [
          'config',
          layerJson({mediaType: HISTORY_RECORD_MEDIA_TYPE, digest: configDigest, size: BigInt(config.length)})
        ],
        ['layers', layers.length === 0 ? null : layers.map(layerJson)]
      ]),
      '  '
    )
  );
  const digest = sha256(manifest);
  blobs.set(digest, manifest);
  return {
    mediaType: MANIFEST_MEDIA_TYPE,
    digest,
    size: manifest.length,
    annotations: {[HISTORY_REFERENCE_ANNOTATION]: record.ref}
  };
}

/** An OCI descriptor as Go's ocispec.Descriptor writes it (annotations sorted, left out when none). */
interface Layer {
  mediaType: string;
  digest: string;
  size: bigint;
  annotations?: [string, string][];
}

function ociDescriptor(d: HistoryDescriptor): Layer {
  return {mediaType: d.mediaType, digest: d.digest, size: d.size, annotations: d.annotations};
}

function layerJson(l: Layer): GoValue {
  const o = new Map<string, GoValue>([
    ['mediaType', l.mediaType],
    ['digest', l.digest],
    ['size', l.size]
  ]);
  if (l.annotations && l.annotations.length > 0)
    o.set(
      'annotations',
      goMap(l.annotations, v => v)
    );
  return o;
}

/** buildx's local state of the build (and of its bake group), as `history export` adds it; none when unreadable. */
function localState(
  configDir: string,
  builder: string,
  node: string,
  ref: string
): {state: LocalState; group?: StateGroup} | undefined {
  const read = (path: string): Record<string, unknown> | undefined => {
    try {
      const v: unknown = JSON.parse(readFileSync(path, 'utf8'));
      return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
    } catch {
      return undefined;
    }
  };
  const text = (v: unknown): string => (typeof v === 'string' ? v : '');
  const list = (v: unknown): string[] | undefined =>
    Array.isArray(v) && v.every(x => typeof x === 'string') ? (v as string[]) : undefined;
  const st = read(join(configDir, 'refs', builder, node, ref));
  if (!st) return undefined;
  const state: LocalState = {
    Target: text(st.Target),
    LocalPath: text(st.LocalPath),
    DockerfilePath: text(st.DockerfilePath)
  };
  if (text(st.GroupRef)) state.GroupRef = text(st.GroupRef);
  if (!state.GroupRef || !/^[a-z0-9]+$/.test(state.GroupRef)) return {state};
  const g = read(join(configDir, 'refs', '__group__', state.GroupRef));
  if (!g) return {state};
  return {state, group: {Targets: list(g.Targets), Refs: list(g.Refs) ?? null}};
}

/** Map entries in key order (Go ranges over a map in random order; sorted, a file is the same each time). */
function byKey<K extends string | bigint, V>(entries: [K, V][]): [K, V][] {
  return [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

function compareTime(a: HistoryRecord, b: HistoryRecord): number {
  const t = (r: HistoryRecord): bigint =>
    r.createdAt ? r.createdAt.seconds * 1_000_000_000n + BigInt(r.createdAt.nanos) : 0n;
  const d = t(a) - t(b);
  return d < 0n ? -1 : d > 0n ? 1 : 0;
}

function refList(refs: string[]): string {
  return refs.length === 1 ? `ref "${refs[0]}"` : `refs ${refs.map(r => `"${r}"`).join(', ')}`;
}
