import {BuildersClient} from '../api/builders-client.js';
import {resolveRequestTimeoutMs} from '../inputs.js';
import type {Logger} from '../logger.js';
import type {BuilderApi} from './builder-api.js';

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
}

/** A BuilderApi the actions use; close() releases its sockets. */
export type ClosableBuilderApi = BuilderApi & {close(): void};

/**
 * The actions' API client, a BuildersClient (never the CI calls): details and teardown with the per-request limit (REMOTE_BUILDER_REQUEST_TIMEOUT_MS,
 * default 15 s), the assignment with `assignTimeoutMs` when that is longer.
 */
export function createBuilderApiClient(opts: BuilderApiClientOpts): ClosableBuilderApi {
  const requestTimeoutMs = resolveRequestTimeoutMs(opts.env ?? process.env);
  const make = (timeoutMs: number): BuildersClient =>
    new BuildersClient({
      baseUrl: opts.apiUrl,
      token: opts.token,
      requestTimeoutMs: timeoutMs,
      ...(opts.logger ? {logger: opts.logger} : {})
    });
  const client = make(requestTimeoutMs);
  const assignMs = opts.assignTimeoutMs ?? 0;
  const assigner = assignMs > requestTimeoutMs ? make(assignMs) : client;
  return {
    assignBuilder: (profile, o) => assigner.assignBuilder(profile, o),
    getBuilderDetails: (id, o) => client.getBuilderDetails(id, o),
    teardownBuilder: (id, o) => client.teardownBuilder(id, o),
    close: () => {
      client.close();
      if (assigner !== client) assigner.close();
    }
  };
}
