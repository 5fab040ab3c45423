import type {BuilderDetails} from '../api/types.js';
import {abortReason, systemClock, type Clock} from '../clock.js';
import {DeadlineError} from '../deadline.js';
import {ApiError, errorMessage} from '../errors.js';
import {detailsVerdict} from './details-verdict.js';
import type {BuilderApi} from '../api/builder-api.js';
import type {ReadyBuilder} from './readiness.js';
import type {TlsProbe} from './tls-probe.js';

/** What checkBuilderHealth found: ready, or not with the reason (a clause: "its status is \"failed\""). */
export type BuilderHealth = {ready: true} | {ready: false; why: string};

export interface BuilderHealthOpts {
  api: BuilderApi;
  probe: TlsProbe;
  signal?: AbortSignal;
  /** Time limit of each of the two calls (the details request, then the TLS probe). Default 5000. */
  timeoutMs?: number;
  /** What measures the details request's time limit. Default: the system clock. */
  clock?: Clock;
}

export const DEFAULT_HEALTH_TIMEOUT_MS = 5000;

export {lostStatusOf} from './details-verdict.js';

/**
 * Why a failed details request says the builder no longer exists, or undefined. Only for a builder that was
 * ready before: then a 404 (or 410) means it is gone, not that the service has not caught up yet.
 */
export function goneAnswerOf(e: unknown): string | undefined {
  return e instanceof ApiError && (e.status === 404 || e.status === 410)
    ? `the service no longer knows it (details answered HTTP ${e.status})`
    : undefined;
}

/**
 * One-shot check that a builder found ready earlier still is, e.g. before retrying a build on it: one details
 * request (status ready or absent, host and PEMs present, the same endpoint as before), then one mutual-TLS
 * probe with the material the builder was configured with. Resolves `{ready: false, why}` on anything wrong,
 * including a service that does not answer; throws only the abort reason of `signal`.
 */
export async function checkBuilderHealth(builder: ReadyBuilder, opts: BuilderHealthOpts): Promise<BuilderHealth> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_HEALTH_TIMEOUT_MS;
  opts.signal?.throwIfAborted();
  let details: BuilderDetails;
  const limit = (opts.clock ?? systemClock).deadline(timeoutMs, {
    parents: [opts.signal],
    reason: () => new DeadlineError(`the details request got no answer within ${timeoutMs} ms`)
  });
  try {
    details = await opts.api.getBuilderDetails(builder.id, {signal: limit.signal, retry: false});
  } catch (e) {
    opts.signal?.throwIfAborted();
    const gone = goneAnswerOf(e);
    if (gone) return notReady(gone);
    if (limit.signal.aborted) return notReady(errorMessage(abortReason(limit.signal)));
    return notReady(`its details could not be read: ${errorMessage(e)}`);
  } finally {
    limit.dispose();
  }
  const problem = examine(builder, details);
  if (problem !== undefined) return notReady(problem);

  const {hostname, port} = builder.endpoint;
  try {
    await opts.probe({hostname, port, pems: builder.pems, timeoutMs, signal: opts.signal});
  } catch (e) {
    opts.signal?.throwIfAborted();
    return notReady(`the TLS check of ${hostname}:${port} failed: ${errorMessage(e)}`);
  }
  return {ready: true};
}

/** What keeps these details from describing the builder as ready at its known endpoint, or undefined. */
function examine(builder: ReadyBuilder, details: BuilderDetails): string | undefined {
  const verdict = detailsVerdict(details);
  switch (verdict.kind) {
    case 'lost':
      return verdict.why;
    case 'broken':
      return verdict.why.startsWith('its ') ? verdict.why : `its ${verdict.why}`;
    case 'pending':
      return verdict.status !== undefined && verdict.status !== 'ready'
        ? `its status is "${verdict.status}", not "ready"`
        : `its details lack ${verdict.missing.join(', ')}`;
  }
  // The build would still connect to the old address: a builder that moved is not the one configured.
  const {endpoint} = verdict;
  const {hostname, port} = builder.endpoint;
  if (endpoint.hostname !== hostname || endpoint.port !== port) {
    return `its details now name ${endpoint.hostname}:${endpoint.port} instead of ${hostname}:${port}`;
  }
  return undefined;
}

function notReady(why: string): BuilderHealth {
  return {ready: false, why};
}
