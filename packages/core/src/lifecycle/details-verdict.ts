import type {BuilderDetails, BuilderMetadata} from '../api/types.js';
import {errorMessage} from '../errors.js';
import {parseBuilderEndpoint, type BuilderEndpoint} from './builder-endpoint.js';

/**
 * What one details answer says of a builder, the one reading of it that readiness, the health check and the
 * watchdog share: gone for good, still starting, complete (host and TLS material usable), or broken (the
 * material or host cannot be used, however long we wait). `why` is a clause without a subject.
 */
export type DetailsVerdict =
  /** Status failed, error, terminated or deleted: it never comes back. `status` as the service wrote it. */
  | {kind: 'lost'; status: string; why: string}
  /** A status other than ready, or connection details missing; `saysReady` when missing despite "ready". */
  | {kind: 'pending'; status?: string; missing: string[]; saysReady: boolean; why: string}
  | {kind: 'broken'; why: string}
  | {kind: 'complete'; endpoint: BuilderEndpoint};

/** Statuses after which a builder never comes back. */
const LOST_STATUSES = new Set(['failed', 'error', 'terminated', 'deleted']);
export const PEM_FIELDS = ['ca', 'client_cert', 'client_key'] as const;
const PEM_BLOCK = /-----BEGIN [A-Z0-9 ]+-----[\s\S]+-----END [A-Z0-9 ]+-----/;

/** Why these details say the builder is gone for good (status failed, error, terminated, deleted), or undefined. */
export function lostStatusOf(details: BuilderDetails): string | undefined {
  const status = typeof details.status === 'string' ? details.status.toLowerCase() : undefined;
  return status !== undefined && LOST_STATUSES.has(status) ? `its status is "${details.status}"` : undefined;
}

/** The verdict on one details answer: lost, then missing fields, then a status other than ready, then PEMs and host. */
export function detailsVerdict(details: BuilderDetails): DetailsVerdict {
  if (typeof details !== 'object' || details === null) {
    return {kind: 'broken', why: 'its details answer is not a JSON object'};
  }
  const lost = lostStatusOf(details);
  if (lost) return {kind: 'lost', status: details.status as string, why: lost};
  const status = typeof details.status === 'string' ? details.status.toLowerCase() || undefined : undefined;
  // A service may omit metadata entirely: that is missing fields, not a crash.
  const m: Partial<BuilderMetadata> = details.metadata ?? {};
  const field = (f: 'host' | (typeof PEM_FIELDS)[number]): string => (typeof m[f] === 'string' ? m[f] : '');
  const missing = (['host', ...PEM_FIELDS] as const).filter(f => field(f).trim() === '');
  if (missing.length > 0) {
    const why = `details lack ${missing.join(', ')}${status ? ` (status "${status}")` : ''}`;
    return {kind: 'pending', status, missing, saysReady: status === 'ready', why};
  }
  if (status !== undefined && status !== 'ready') {
    return {kind: 'pending', status, missing: [], saysReady: false, why: `status is "${status}"`};
  }
  const malformed = PEM_FIELDS.filter(f => !PEM_BLOCK.test(field(f)));
  if (malformed.length > 0)
    return {kind: 'broken', why: `details carry a malformed ${malformed.join(', ')}: not a PEM block`};
  try {
    return {kind: 'complete', endpoint: parseBuilderEndpoint(field('host'))};
  } catch (e) {
    return {kind: 'broken', why: `details carry an unusable host: ${errorMessage(e)}`};
  }
}
