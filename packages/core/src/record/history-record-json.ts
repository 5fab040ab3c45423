import {goJson, goMap, type GoValue} from './go-json.js';
import type {HistoryDescriptor, HistoryRecord, HistoryResult, HistoryTimestamp} from './history-record.js';

/** buildx's local state of a build (localstate.State): where its context and Dockerfile were. */
export interface LocalState {
  Target: string;
  LocalPath: string;
  DockerfilePath: string;
  GroupRef?: string;
}

/** buildx's state of a bake run (localstate.StateGroup). */
export interface StateGroup {
  Targets?: string[];
  Refs: string[] | null;
}

export interface RecordExtras {
  /** The node's first platform, as buildx writes it. */
  defaultPlatform: string;
  localState?: LocalState;
  stateGroup?: StateGroup;
}

/**
 * The history record as buildx's `history export` writes it into the bundle (util/desktop/bundle: Record, Go's
 * encoding/json of the generated BuildHistoryRecord with buildx's fields after it): the protobuf struct's JSON
 * names and order (some capitalised, some not, as the generated tags say), empty fields left out, maps sorted,
 * and the `cache-imports` frontend attribute sanitised as buildx does (only `scope` and `ref` kept).
 */
export function historyRecordJson(rec: HistoryRecord, extras: RecordExtras): GoValue {
  const o = new Map<string, GoValue>();
  const put = (key: string, value: GoValue | undefined): void => {
    if (value !== undefined) o.set(key, value);
  };
  put('Ref', rec.ref || undefined);
  put('Frontend', rec.frontend || undefined);
  put(
    'FrontendAttrs',
    stringMap(rec.frontendAttrs.map(([k, v]) => [k, k === 'cache-imports' ? sanitizeCacheImports(v) : v]))
  );
  put(
    'Exporters',
    rec.exporters.length === 0
      ? undefined
      : rec.exporters.map(e => {
          const x = new Map<string, GoValue>();
          if (e.type) x.set('Type', e.type);
          const attrs = stringMap(e.attrs);
          if (attrs) x.set('Attrs', attrs);
          return x;
        })
  );
  if (rec.error) {
    const s = new Map<string, GoValue>();
    if (rec.error.code) s.set('code', rec.error.code);
    if (rec.error.message) s.set('message', rec.error.message);
    if (rec.error.details.length > 0) {
      s.set(
        'details',
        rec.error.details.map(d => {
          const a = new Map<string, GoValue>();
          if (d.typeUrl) a.set('type_url', d.typeUrl);
          if (d.value.length > 0) a.set('value', d.value);
          return a;
        })
      );
    }
    o.set('error', s);
  }
  put('CreatedAt', timestamp(rec.createdAt));
  put('CompletedAt', timestamp(rec.completedAt));
  put('logs', descriptor(rec.logs));
  put('ExporterResponse', stringMap(rec.exporterResponse));
  put('Result', result(rec.result));
  put(
    'Results',
    rec.results.length === 0 ? undefined : goMap(rec.results, r => result(r) ?? new Map<string, GoValue>())
  );
  put('Generation', rec.generation || undefined);
  put('trace', descriptor(rec.trace));
  put('pinned', rec.pinned || undefined);
  put('numCachedSteps', rec.numCachedSteps || undefined);
  put('numTotalSteps', rec.numTotalSteps || undefined);
  put('numCompletedSteps', rec.numCompletedSteps || undefined);
  put('externalError', descriptor(rec.externalError));
  put('numWarnings', rec.numWarnings || undefined);
  o.set('DefaultPlatform', extras.defaultPlatform);
  if (extras.localState) {
    const s = extras.localState;
    const st = new Map<string, GoValue>([
      ['Target', s.Target],
      ['LocalPath', s.LocalPath],
      ['DockerfilePath', s.DockerfilePath]
    ]);
    if (s.GroupRef) st.set('GroupRef', s.GroupRef);
    o.set('localState', st);
  }
  if (extras.stateGroup) {
    const g = new Map<string, GoValue>();
    if (extras.stateGroup.Targets?.length) g.set('Targets', extras.stateGroup.Targets);
    g.set('Refs', extras.stateGroup.Refs);
    o.set('stateGroup', g);
  }
  return o;
}

/** A descriptor as the generated Descriptor struct writes it; undefined for none (omitempty). */
export function descriptor(d: HistoryDescriptor | undefined): Map<string, GoValue> | undefined {
  if (!d) return undefined;
  const o = new Map<string, GoValue>();
  if (d.mediaType) o.set('media_type', d.mediaType);
  if (d.digest) o.set('digest', d.digest);
  if (d.size !== 0n) o.set('size', d.size);
  const annotations = stringMap(d.annotations);
  if (annotations) o.set('annotations', annotations);
  return o;
}

function result(r: HistoryResult | undefined): Map<string, GoValue> | undefined {
  if (!r) return undefined;
  const o = new Map<string, GoValue>();
  const deprecated = descriptor(r.resultDeprecated);
  if (deprecated) o.set('ResultDeprecated', deprecated);
  if (r.attestations.length > 0)
    o.set(
      'Attestations',
      r.attestations.map(d => descriptor(d)!)
    );
  if (r.results.length > 0) {
    o.set(
      'Results',
      goMap(
        r.results.map(([k, d]): [string, HistoryDescriptor] => [k.toString(), d]),
        d => descriptor(d)!
      )
    );
  }
  return o;
}

function timestamp(t: HistoryTimestamp | undefined): Map<string, GoValue> | undefined {
  if (!t) return undefined;
  const o = new Map<string, GoValue>();
  if (t.seconds !== 0n) o.set('seconds', t.seconds);
  if (t.nanos !== 0) o.set('nanos', t.nanos);
  return o;
}

function stringMap(entries: [string, string][]): Map<string, GoValue> | undefined {
  return entries.length === 0 ? undefined : goMap(entries, v => v);
}

/**
 * buildx's sanitizeCacheImports: the JSON list of cache imports with only the `scope` and `ref` attributes of
 * each (the others may hold credentials); '' when it is not such a list.
 */
export function sanitizeCacheImports(value: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return '';
  }
  if (parsed === null) return 'null';
  if (!Array.isArray(parsed)) return '';
  const out: GoValue[] = [];
  for (const item of parsed) {
    if (item !== null && typeof item !== 'object') return '';
    const fields = (item ?? {}) as Record<string, unknown>;
    // Go matches JSON keys to struct fields without regard to case; the last match wins.
    let type = '';
    let attrs: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(fields)) {
      if (k.toLowerCase() === 'type') {
        if (typeof v !== 'string' && v !== null) return '';
        type = v ?? '';
      } else if (k.toLowerCase() === 'attrs') {
        if (v !== null && (typeof v !== 'object' || Array.isArray(v))) return '';
        attrs = (v ?? {}) as Record<string, unknown>;
      }
    }
    const kept: [string, string][] = [];
    for (const [k, v] of Object.entries(attrs)) {
      if (typeof v !== 'string' && v !== null) return '';
      if (k === 'scope' || k === 'ref') kept.push([k, v ?? '']);
    }
    out.push(
      new Map<string, GoValue>([
        ['Type', type],
        ['Attrs', goMap(kept, v => v)]
      ])
    );
  }
  return goJson(out);
}
