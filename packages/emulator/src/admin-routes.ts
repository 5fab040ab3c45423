import type {BuilderDetails} from './builder.js';
import {ENDPOINT_MODES, type EndpointMode} from './builder-endpoint.js';
import {type FaultRule, parseFaultRule, type StoredFault} from './faults.js';
import {apiError, type HttpResult, json, parseJson} from './http.js';
import type {LedgerEntry} from './ledger.js';
import type {Profile} from './profiles.js';
import type {RequestRecord} from './request-log.js';

/** Prefix of the admin routes: loopback tooling, no authentication (the emulator's choice). */
export const ADMIN_PREFIX = '/_emulator';

/** What the admin routes can see and change; the Emulator implements it. */
export interface EmulatorControls {
  ledger(): LedgerEntry[];
  totalCost(): number;
  requests(): RequestRecord[];
  profiles(): Profile[];
  faults(): (StoredFault & {remaining: number | null})[];
  addFault(rule: FaultRule): string;
  removeFault(id: string): boolean;
  clearFaults(): void;
  setLatency(ms: number): void;
  latency(): number;
  builderDetails(id: string): BuilderDetails | undefined;
  markReady(id: string): void;
  markFailed(id: string): void;
  setEndpointMode(id: string, mode: EndpointMode): void;
  /** Clears faults and the request log; keeps the ledger. */
  reset(): void;
}

/**
 * Handles `/_emulator/*`:
 * GET health, GET ledger, GET requests, GET profiles, GET|POST|DELETE faults, DELETE faults/{id},
 * POST builders/{id}/ready, POST builders/{id}/fail, POST builders/{id}/endpoint {"mode": "normal"|"silent"|"kill"},
 * GET|PUT latency, POST reset.
 * Bodies are read as JSON whatever their content type.
 */
export function handleAdmin(controls: EmulatorControls, method: string, pathname: string, body: Buffer): HttpResult {
  const path = pathname.slice(ADMIN_PREFIX.length).replace(/\/+$/, '') || '/';
  const notAllowed = (allow: string): HttpResult =>
    apiError(405, 'method_not_allowed', `Method ${method} not allowed; use ${allow}`, {allow});

  if (path === '/health') {
    if (method !== 'GET') return notAllowed('GET');
    return json(200, {status: 'ok'});
  }
  if (path === '/ledger') {
    if (method !== 'GET') return notAllowed('GET');
    const entries = controls.ledger();
    return json(200, {
      entries,
      assigned: entries.filter(e => e.terminatedAt === undefined).length,
      totalCost: controls.totalCost()
    });
  }
  if (path === '/requests') {
    if (method !== 'GET') return notAllowed('GET');
    return json(200, {requests: controls.requests()});
  }
  if (path === '/profiles') {
    if (method !== 'GET') return notAllowed('GET');
    return json(200, {profiles: controls.profiles()});
  }
  if (path === '/faults') {
    if (method === 'GET') return json(200, {faults: controls.faults()});
    if (method === 'DELETE') {
      controls.clearFaults();
      return json(200, {cleared: true});
    }
    if (method !== 'POST') return notAllowed('GET, POST, DELETE');
    let rule: FaultRule;
    try {
      rule = parseFaultRule(parseJson(body));
    } catch (e) {
      return apiError(400, 'bad_request', e instanceof Error ? e.message : String(e));
    }
    return json(200, {id: controls.addFault(rule)});
  }
  const fault = /^\/faults\/([^/]+)$/.exec(path);
  if (fault) {
    if (method !== 'DELETE') return notAllowed('DELETE');
    const id = decodeURIComponent(fault[1] as string);
    return controls.removeFault(id)
      ? json(200, {id, removed: true})
      : apiError(404, 'fault_not_found', `No fault ${JSON.stringify(id)}`);
  }
  const builder = /^\/builders\/([^/]+)\/(ready|fail)$/.exec(path);
  if (builder) {
    if (method !== 'POST') return notAllowed('POST');
    const id = decodeURIComponent(builder[1] as string);
    if (!controls.builderDetails(id)) return apiError(404, 'builder_not_found', `No builder ${JSON.stringify(id)}`);
    try {
      if (builder[2] === 'ready') controls.markReady(id);
      else controls.markFailed(id);
    } catch (e) {
      return apiError(409, 'conflict', e instanceof Error ? e.message : String(e));
    }
    return json(200, controls.builderDetails(id));
  }
  const endpoint = /^\/builders\/([^/]+)\/endpoint$/.exec(path);
  if (endpoint) {
    if (method !== 'POST') return notAllowed('POST');
    const id = decodeURIComponent(endpoint[1] as string);
    if (!controls.builderDetails(id)) return apiError(404, 'builder_not_found', `No builder ${JSON.stringify(id)}`);
    const mode = (parseJson(body) as {mode?: unknown} | null | undefined)?.mode;
    if (!(ENDPOINT_MODES as readonly unknown[]).includes(mode)) {
      return apiError(400, 'bad_request', `Body must be {"mode": ${ENDPOINT_MODES.map(m => `"${m}"`).join('|')}}`);
    }
    try {
      controls.setEndpointMode(id, mode as EndpointMode);
    } catch (e) {
      return apiError(409, 'conflict', e instanceof Error ? e.message : String(e));
    }
    return json(200, {id, mode});
  }
  if (path === '/latency') {
    if (method === 'GET') return json(200, {ms: controls.latency()});
    if (method !== 'PUT') return notAllowed('GET, PUT');
    const ms = (parseJson(body) as {ms?: unknown} | undefined)?.ms;
    if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) {
      return apiError(400, 'bad_request', 'Body must be {"ms": <non-negative number>}');
    }
    controls.setLatency(ms);
    return json(200, {ms});
  }
  if (path === '/reset') {
    if (method !== 'POST') return notAllowed('POST');
    controls.reset();
    return json(200, {reset: true});
  }
  return apiError(404, 'not_found', `No admin route ${method} ${pathname}`);
}
