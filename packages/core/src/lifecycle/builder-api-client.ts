import type {BuilderApi} from '../api/builder-api.js';
import {BuildersClient} from '../api/builders-client.js';
import type {Clock} from '../clock.js';
import {ACTION_INPUT_NAMES, DEFAULT_REQUEST_TIMEOUT_MS} from '../api/request-engine.js';
import {resolveRequestTimeoutMs} from '../inputs.js';
import type {Logger} from '../logger.js';

export interface BuilderApiClientOpts {
  apiUrl: string;
  token: string;
  /** Read for REMOTE_BUILDER_REQUEST_TIMEOUT_MS (throws InputError when malformed); default process.env. */
  env?: NodeJS.ProcessEnv;
  logger?: Logger;
  /**
   * How long an assignment may take to answer. The assignment is the one call whose lost answer leaves a
   * builder billed that nobody can name, so it is not cut at the per-request limit: the lifecycle bounds it
   * by the readiness deadline (plus a grace for a late answer) instead. Default: the per-request limit.
   */
  assignTimeoutMs?: number;
  /** The step's clock: what measures the request limits and the retries' pauses (default the system clock). */
  clock?: Clock;
}

/** A BuilderApi the actions use; close() releases its sockets. */
export type ClosableBuilderApi = BuilderApi & {close(): void};

/**
 * The actions' API client, one BuildersClient (never the CI calls): details and teardown with the per-request
 * limit (REMOTE_BUILDER_REQUEST_TIMEOUT_MS, default 15 s), the assignment with `assignTimeoutMs` when that is longer.
 */
export function createBuilderApiClient(opts: BuilderApiClientOpts): ClosableBuilderApi {
  const requestTimeoutMs = resolveRequestTimeoutMs(opts.env ?? process.env, DEFAULT_REQUEST_TIMEOUT_MS);
  const client = new BuildersClient({
    baseUrl: opts.apiUrl,
    token: opts.token,
    requestTimeoutMs,
    logger: opts.logger,
    clock: opts.clock,
    inputNames: ACTION_INPUT_NAMES
  });
  const assignTimeoutMs = Math.max(opts.assignTimeoutMs ?? 0, requestTimeoutMs);
  return {
    assignBuilder: (profile, o) => client.assignBuilder(profile, {signal: o?.signal, timeoutMs: assignTimeoutMs}),
    getBuilderDetails: (id, o) => client.getBuilderDetails(id, o),
    teardownBuilder: (id, o) => client.teardownBuilder(id, o),
    close: () => client.close()
  };
}
