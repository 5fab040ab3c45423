import type {AssignResponse, BuilderDetails, BuilderInstance, BuilderMetadata, BuilderProfile} from './types.js';

/**
 * Tolerant readers of response bodies. The spec shows few fields ("not shown" elsewhere), so readers keep
 * unknown fields and reject only what the client cannot work with. A reader returns the value, or the
 * reason the body is unusable; the client turns that reason into an ApiError.
 */
export type ReadResult<T> = {ok: true; value: T} | {ok: false; reason: string};

/** Keys under which a page of profiles may hold its array, in order of preference. */
export const PROFILE_PAGE_KEYS = ['builder_profiles', 'profiles', 'data', 'items', 'results'] as const;

export type JsonObject = Record<string, unknown>;

/** A JSON object (not an array, not null). */
export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The body as JSON, or why it is not. */
export function parseJson(body: string): ReadResult<unknown> {
  try {
    return {ok: true, value: JSON.parse(body)};
  } catch {
    return {ok: false, reason: `the body is not JSON (${Buffer.byteLength(body)} bytes)`};
  }
}

/** An assignment answer that is unusable as a whole, but names some builders that are (they are billed). */
export interface AssignReadFailure {
  ok: false;
  reason: string;
  /** Ids of the well-formed entries of an answer with bad ones next to them. */
  validIds?: string[];
}

/**
 * Reads POST /builders/assign: `builder_instances` must be a non-empty array of objects with non-empty string
 * ids. When some entries are bad, the answer is refused (we cannot know what the service meant by them), but
 * the well-formed ids are returned too: those builders exist and are billed, so they must be torn down.
 */
export function readAssignResponse(body: string): ReadResult<AssignResponse> | AssignReadFailure {
  const json = parseJson(body);
  if (!json.ok) return json;
  if (!isObject(json.value)) return {ok: false, reason: 'the body is not a JSON object'};
  const list = json.value.builder_instances;
  if (!Array.isArray(list)) return {ok: false, reason: 'builder_instances is not an array'};
  if (list.length === 0) return {ok: false, reason: 'builder_instances is empty'};
  const instances: BuilderInstance[] = [];
  const bad: string[] = [];
  for (const [i, item] of list.entries()) {
    if (isObject(item) && typeof item.id === 'string' && item.id.trim() !== '') {
      instances.push({...item, id: item.id});
    } else {
      bad.push(`builder_instances[${i}] is ${quote(item)}`);
    }
  }
  if (bad.length > 0) {
    const reason = `${bad.join(', ')}: not a builder with a non-empty string id`;
    return instances.length > 0 ? {ok: false, reason, validIds: instances.map(b => b.id)} : {ok: false, reason};
  }
  return {ok: true, value: {...json.value, builder_instances: instances}};
}

/** A JSON value as it appeared, shortened for a message. */
function quote(v: unknown): string {
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** Reads GET /builders/{id}/details. Missing metadata or metadata fields become ''. */
export function readBuilderDetails(body: string): ReadResult<BuilderDetails> {
  const json = parseJson(body);
  if (!json.ok) return json;
  if (!isObject(json.value)) return {ok: false, reason: 'the body is not a JSON object'};
  const raw = json.value;
  const meta: JsonObject = isObject(raw.metadata) ? raw.metadata : {};
  const metadata: BuilderMetadata = {
    ...meta,
    host: stringOr(meta.host),
    ca: stringOr(meta.ca),
    client_cert: stringOr(meta.client_cert),
    client_key: stringOr(meta.client_key)
  };
  const details: BuilderDetails = {...raw, metadata};
  for (const k of ['id', 'status', 'arch'] as const) {
    const v = scalarString(raw[k]);
    if (v === undefined) delete details[k];
    else details[k] = v;
  }
  return {ok: true, value: details};
}

/** One page of profiles, plus the page size the service says it used, when it says so. */
export interface ProfilesPage {
  profiles: BuilderProfile[];
  /** A positive integer `per_page` of the page object, e.g. when the service clamps the size asked for. */
  perPage?: number;
}

/** Reads one page of GET /builder-profiles: a bare array, or the first array under PROFILE_PAGE_KEYS. */
export function readProfilesPage(body: string): ReadResult<ProfilesPage> {
  const json = parseJson(body);
  if (!json.ok) return json;
  let list: unknown;
  let perPage: number | undefined;
  if (Array.isArray(json.value)) {
    list = json.value;
  } else if (isObject(json.value)) {
    const page = json.value;
    list = PROFILE_PAGE_KEYS.map(k => page[k]).find(v => Array.isArray(v));
    if (Number.isSafeInteger(page.per_page) && (page.per_page as number) >= 1) perPage = page.per_page as number;
  }
  if (!Array.isArray(list)) {
    return {
      ok: false,
      reason: `no array of profiles (expected a JSON array or one of ${PROFILE_PAGE_KEYS.join(', ')})`
    };
  }
  const profiles: BuilderProfile[] = [];
  for (const [i, item] of list.entries()) {
    if (!isObject(item)) return {ok: false, reason: `profile [${i}] is not an object`};
    const id = scalarString(item.id);
    if (id === undefined || id === '') return {ok: false, reason: `profile [${i}] has no id`};
    const profile: BuilderProfile = {...item, id};
    if (typeof item.name !== 'string') delete profile.name;
    profiles.push(profile);
  }
  return {ok: true, value: perPage === undefined ? {profiles} : {profiles, perPage}};
}

function stringOr(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** A string as is, a finite number as its decimal string, anything else undefined. */
function scalarString(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return undefined;
}
