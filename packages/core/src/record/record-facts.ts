import type {BuildRecordEntry} from '../report/run-record.js';
import {recordConfig, recordRef, type RecordBundle} from './record-bundle.js';
import {buildName, type RecordLocalState} from './record-name.js';

/** gRPC's code for a cancelled call (BuildKit's record of a cancelled build). */
const GRPC_CANCELED = 1;

/**
 * The summary's facts of every build in an exported `.dockerbuild`, read after the teardown: what `buildx
 * history inspect` would have said (name, status, duration, steps, error), from the history records the file
 * holds, so that no inspect holds the builder. One entry per ref, in the order of `nodes` (each ref asked, with
 * the buildx nodes that built it); a ref several nodes recorded (buildx >= 0.33) is told by its first record,
 * as `history inspect` shows one. `bundle` is the file as readRecordBundle read it.
 */
export function recordFacts(bundle: RecordBundle, nodes: ReadonlyMap<string, string | undefined>): BuildRecordEntry[] {
  const byRef = new Map<string, BuildRecordEntry>();
  for (const d of bundle.records) {
    const ref = recordRef(d);
    if (!byRef.has(ref)) byRef.set(ref, entryFromRecord(recordConfig(bundle, d), ref, nodes.get(ref)));
  }
  const asked = [...nodes].map(([ref, node]) => byRef.get(ref) ?? {ref, ...(node !== undefined ? {node} : {})});
  return [...asked, ...[...byRef.values()].filter(e => !nodes.has(e.ref))];
}

/**
 * One build's entry from its history record (BuildKit's BuildHistoryRecord as buildx's bundle writes it with Go's
 * encoding/json: `Ref`, `FrontendAttrs`, `error` {code, message}, `CreatedAt`/`CompletedAt`, `numCachedSteps`, …,
 * and buildx's `localState`). Read tolerantly: a field that is missing or of another shape is left out.
 * Status and duration as `history inspect` derives them: no CompletedAt is a running build; an error with
 * gRPC code 1 a cancelled one, any other an error.
 */
export function entryFromRecord(record: Record<string, unknown>, ref: string, node?: string): BuildRecordEntry {
  const entry: BuildRecordEntry = {ref: typeof record.Ref === 'string' && record.Ref !== '' ? record.Ref : ref};
  if (node !== undefined) entry.node = node;
  const name = buildName(stringMap(record.FrontendAttrs), objectOf(record.localState) as RecordLocalState);
  if (name !== '') entry.name = name;
  const created = timestampMs(record.CreatedAt);
  const completed = timestampMs(record.CompletedAt);
  // Any error at all is a failed build; its code and message only when it has the Status shape.
  const failed = record.error !== undefined && record.error !== null;
  const error = objectOf(record.error);
  const code = typeof error?.code === 'number' ? error.code : undefined;
  if (failed) entry.status = code === GRPC_CANCELED ? 'canceled' : 'failed';
  else if (completed !== undefined) entry.status = 'completed';
  else entry.status = 'running';
  if (created !== undefined && completed !== undefined && completed >= created) {
    entry.durationMs = Math.round(completed - created);
  }
  for (const [from, to] of [
    ['numCachedSteps', 'numCachedSteps'],
    ['numTotalSteps', 'numTotalSteps'],
    ['numCompletedSteps', 'numCompletedSteps']
  ] as const) {
    const v = record[from];
    // Go's omitempty leaves out a zero.
    entry[to] = typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : 0;
  }
  const message = typeof error?.message === 'string' ? error.message : '';
  if (entry.status === 'failed' && message !== '') entry.error = message;
  return entry;
}

/**
 * A protobuf Timestamp as Go's encoding/json writes one (`{"seconds": n, "nanos": n}`, either omitted when zero),
 * or an RFC 3339 string (as gogo's stdtime wrote it in older BuildKits), in epoch ms.
 */
function timestampMs(v: unknown): number | undefined {
  if (typeof v === 'string') {
    const t = Date.parse(v);
    return Number.isNaN(t) ? undefined : t;
  }
  const o = objectOf(v);
  if (o === undefined) return undefined;
  const seconds = typeof o.seconds === 'number' ? o.seconds : typeof o.seconds === 'string' ? Number(o.seconds) : 0;
  const nanos = typeof o.nanos === 'number' ? o.nanos : 0;
  const ms = seconds * 1000 + nanos / 1e6;
  return Number.isFinite(ms) ? ms : undefined;
}

function objectOf(v: unknown): Record<string, unknown> | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

function stringMap(v: unknown): Record<string, string> {
  const o = objectOf(v) ?? {};
  return Object.fromEntries(Object.entries(o).filter((e): e is [string, string] => typeof e[1] === 'string'));
}
