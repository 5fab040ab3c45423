import {createBuilderApiClient, type ClosableBuilderApi} from '../lifecycle/builder-api-client.js';
import {DEFAULT_IN_FLIGHT_GRACE_MS} from '../lifecycle/builder-lifecycle.js';
import type {Logger} from '../logger.js';

/** Makes the client the run and the post step talk to the service with; tests inject a fake. */
export type MakeBuilderApi = (apiUrl: string, token: string) => ClosableBuilderApi;

/**
 * The assignment's time limit for a readiness timeout. The lifecycle bounds the assignment by the deadline
 * plus the in-flight grace, so the request itself must not be cut sooner at the per-request limit (15 s): a
 * lost answer bills a builder nobody can name. One more second lets the lifecycle's own limit fire first.
 */
export function assignTimeoutFor(timeoutMs: number): number {
  return timeoutMs + DEFAULT_IN_FLIGHT_GRACE_MS + 1000;
}

/**
 * The production factory: createBuilderApiClient (REMOTE_BUILDER_REQUEST_TIMEOUT_MS read from `env`), with
 * the assignment limit of `timeoutMs` when given (main), the per-request limit otherwise (post: no assignment).
 */
export function defaultMakeBuilderApi(opts: {
  env: NodeJS.ProcessEnv;
  logger: Logger;
  timeoutMs?: number;
}): MakeBuilderApi {
  return (apiUrl, token) =>
    createBuilderApiClient({
      apiUrl,
      token,
      env: opts.env,
      logger: opts.logger,
      assignTimeoutMs: opts.timeoutMs === undefined ? undefined : assignTimeoutFor(opts.timeoutMs)
    });
}
