import {isObject, parseJson, type JsonObject, type ReadResult} from './response-readers.js';
import type {Runner, RunnerImage, RunnerImagePage, Stack} from './runner-types.js';

/**
 * Tolerant readers of the runner, runner-image and stack responses. The spec shows the runner record and
 * little else ("shape: not shown" for the image and stack lists), so a list may be a bare array or sit under
 * one of a few keys, a record may be wrapped, unknown fields are kept as sent, and a named field whose value
 * has the wrong type is dropped rather than failing the call. Only a missing id makes a record unusable.
 */

/** Keys under which a page of runner images may hold its array, in order of preference. */
export const RUNNER_IMAGE_LIST_KEYS = ['runner_images', 'images', 'data', 'items', 'results'] as const;
/** Keys under which the stack listing may hold its array, in order of preference. */
export const STACK_LIST_KEYS = ['stacks', 'data', 'items', 'results'] as const;
/** Keys under which the runner listing may hold its array (the spec says a bare array). */
export const RUNNER_LIST_KEYS = ['runners', 'data', 'items', 'results'] as const;
/** Keys that may wrap a single runner-image record. */
export const RUNNER_IMAGE_RECORD_KEYS = ['runner_image', 'image', 'data'] as const;
/** Keys that may wrap a single runner record (the spec says the record itself). */
export const RUNNER_RECORD_KEYS = ['runner', 'data'] as const;

type Kind = 'string' | 'number' | 'boolean' | 'string[]' | 'string|null' | Schema;
interface Schema {
  [field: string]: Kind;
}

const STORAGE: Schema = {
  tier: 'string',
  size: 'number',
  throughput: 'number',
  iops: 'number',
  disk_type: 'string',
  performance_tier: 'string'
};
const BYOC_SKU: Schema = {
  instance_types: 'string[]',
  is_public: 'boolean',
  arch: 'string',
  role_arn: 'string',
  network_tier: 'string'
};
const RUNNER: Schema = {
  created_at: 'string',
  updated_at: 'string',
  name: 'string',
  vcs_integration_id: 'string',
  organization_id: 'string',
  provider_id: 'string',
  stock_runner_id: 'string|null',
  labels: 'string[]',
  active: 'boolean',
  pool_size: 'number',
  meta: {supports_snapshot: 'boolean'},
  configuration: {image: 'string', capacity_type: 'string', sku: 'string', storage: STORAGE, byoc_sku: BYOC_SKU}
};
const RUNNER_IMAGE: Schema = {
  alias: 'string',
  os: 'string',
  arch: 'string',
  stack_id: 'string',
  type: 'string',
  service_image: {image_uri: 'string', cloud_init_template: 'string'},
  settings: {purge_image_versions_offset: 'number'},
  byoc_ami: {ami_id: 'string', root_device_name: 'string'}
};
const STACK: Schema = {kind: 'string', name: 'string'};

function matches(v: unknown, kind: Exclude<Kind, Schema>): boolean {
  switch (kind) {
    case 'string':
      return typeof v === 'string';
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    case 'boolean':
      return typeof v === 'boolean';
    case 'string[]':
      return Array.isArray(v) && v.every(s => typeof s === 'string');
    case 'string|null':
      return v === null || typeof v === 'string';
  }
}

/** A copy of `obj` without the named fields whose value has the wrong type; other fields are kept as sent. */
function conform(obj: JsonObject, schema: Schema): JsonObject {
  const out: JsonObject = {...obj};
  for (const [key, kind] of Object.entries(schema)) {
    if (!(key in out)) continue;
    const v = out[key];
    if (typeof kind === 'object') {
      if (isObject(v)) out[key] = conform(v, kind);
      else delete out[key];
    } else if (!matches(v, kind)) {
      delete out[key];
    }
  }
  return out;
}

/** A record with a usable id (numbers become strings), conformed to `schema`; undefined without an id. */
function toRecord<T extends {id: string}>(item: unknown, schema: Schema): T | undefined {
  if (!isObject(item)) return undefined;
  const id =
    typeof item.id === 'string'
      ? item.id
      : typeof item.id === 'number' && Number.isFinite(item.id)
        ? String(item.id)
        : '';
  if (id === '') return undefined;
  return {...conform(item, schema), id} as T;
}

interface ListRead {
  items: unknown[];
  container?: JsonObject;
}

function findList(value: unknown, keys: readonly string[]): ListRead | undefined {
  if (Array.isArray(value)) return {items: value};
  if (!isObject(value)) return undefined;
  const list = keys.map(k => value[k]).find(v => Array.isArray(v));
  return Array.isArray(list) ? {items: list, container: value} : undefined;
}

function readList<T extends {id: string}>(
  body: string,
  keys: readonly string[],
  what: string,
  schema: Schema
): ReadResult<{records: T[]; container?: JsonObject}> {
  const json = parseJson(body);
  if (!json.ok) return json;
  const found = findList(json.value, keys);
  if (!found) {
    return {ok: false, reason: `no array of ${what}s (expected a JSON array or one of ${keys.join(', ')})`};
  }
  const records: T[] = [];
  for (const [i, item] of found.items.entries()) {
    const record = toRecord<T>(item, schema);
    if (!record) return {ok: false, reason: `${what} [${i}] is not an object with an id`};
    records.push(record);
  }
  return {ok: true, value: found.container ? {records, container: found.container} : {records}};
}

/** A record itself, or the object under one of `keys` when the record is wrapped. */
function readOne<T extends {id: string}>(
  body: string,
  keys: readonly string[],
  what: string,
  schema: Schema
): ReadResult<T> {
  const json = parseJson(body);
  if (!json.ok) return json;
  const direct = toRecord<T>(json.value, schema);
  if (direct) return {ok: true, value: direct};
  if (isObject(json.value)) {
    const outer = json.value;
    for (const k of keys) {
      const wrapped = toRecord<T>(outer[k], schema);
      if (wrapped) return {ok: true, value: wrapped};
    }
  }
  return {ok: false, reason: `no ${what} with an id in the body`};
}

function nonNegativeInt(v: unknown): number | undefined {
  return Number.isSafeInteger(v) && (v as number) >= 0 ? (v as number) : undefined;
}

/** Reads GET /stacks: a bare array, or the first array under STACK_LIST_KEYS. */
export function readStackList(body: string): ReadResult<Stack[]> {
  const r = readList<Stack>(body, STACK_LIST_KEYS, 'stack', STACK);
  return r.ok ? {ok: true, value: r.value.records} : r;
}

/** Reads one page of GET /runner-images, with `page`, `per_page` and `total` when the page object has them. */
export function readRunnerImagePage(body: string): ReadResult<RunnerImagePage> {
  const r = readList<RunnerImage>(body, RUNNER_IMAGE_LIST_KEYS, 'runner image', RUNNER_IMAGE);
  if (!r.ok) return r;
  const page: RunnerImagePage = {images: r.value.records};
  const c = r.value.container;
  if (c) {
    const p = nonNegativeInt(c.page);
    const perPage = nonNegativeInt(c.per_page);
    const total = nonNegativeInt(c.total) ?? nonNegativeInt(c.total_count);
    if (p !== undefined) page.page = p;
    if (perPage !== undefined && perPage >= 1) page.perPage = perPage;
    if (total !== undefined) page.total = total;
  }
  return {ok: true, value: page};
}

/** Reads a runner-image record (create, update): the record itself or wrapped under RUNNER_IMAGE_RECORD_KEYS. */
export function readRunnerImage(body: string): ReadResult<RunnerImage> {
  return readOne<RunnerImage>(body, RUNNER_IMAGE_RECORD_KEYS, 'runner image', RUNNER_IMAGE);
}

/** Reads GET /runners: an array of runner records (or the first array under RUNNER_LIST_KEYS). */
export function readRunnerList(body: string): ReadResult<Runner[]> {
  const r = readList<Runner>(body, RUNNER_LIST_KEYS, 'runner', RUNNER);
  return r.ok ? {ok: true, value: r.value.records} : r;
}

/** Reads a runner record (get, create, update, delete). */
export function readRunner(body: string): ReadResult<Runner> {
  return readOne<Runner>(body, RUNNER_RECORD_KEYS, 'runner', RUNNER);
}
