import type {AssignResponse} from '../api/types.js';
import type {Clock} from '../clock.js';
import {DeadlineError} from '../deadline.js';
import {ApiError, PartialAssignError} from '../errors.js';
import type {Logger} from '../logger.js';
import type {BuilderApi} from '../api/builder-api.js';
import {CancelledError} from './cancelled-error.js';
import {BuilderTimeoutError} from './readiness.js';

/** How long a cancelled or timed-out assignment still in flight is waited for, to tear down what it assigned. */
export const DEFAULT_IN_FLIGHT_GRACE_MS = 5000;

export interface AssignmentOpts {
  api: BuilderApi;
  clock: Clock;
  logger: Logger;
  profile: string;
  /** Epoch ms (on `clock`) by which the assignment must answer. */
  deadline: number;
  signal?: AbortSignal;
  /** How long a cancelled or timed-out assignment still in flight is waited for (DEFAULT_IN_FLIGHT_GRACE_MS). */
  inFlightGraceMs?: number;
  /**
   * Told of every builder the service assigned the moment its answer arrives, also a late one or the good
   * entries of a partly bad answer: they are billed, so the caller saves them to be torn down.
   */
  onAssigned: (instances: AssignResponse['builder_instances'], sentAt: number) => void;
}

/**
 * Sends the assignment and waits for its answer until the deadline. The request is tied neither to the
 * cancellation signal nor to the deadline: once sent it may be processed, so when either comes first we
 * wait a grace period for the answer, to learn what to tear down, before giving up on it.
 * Resolves the assigned builder ids; rejects with CancelledError, BuilderTimeoutError or the API's error.
 */
export async function assignBuilders(opts: AssignmentOpts): Promise<string[]> {
  const {api, clock, logger, profile, signal} = opts;
  if (signal?.aborted) throw new CancelledError(`before assigning from profile "${profile}"`);
  const waitMs = Math.max(1, opts.deadline - clock.now());
  const sentAt = clock.now();
  const abandon = new AbortController();
  const tracked = api.assignBuilder(profile, {signal: abandon.signal}).then(
    res => {
      opts.onAssigned(res.builder_instances, sentAt);
      return res.builder_instances.map(b => b.id);
    },
    (e: unknown) => {
      // Bad entries next to good ones: the good ones are billed, so they are saved to be torn down.
      if (e instanceof PartialAssignError)
        opts.onAssigned(
          e.assignedIds.map(id => ({id})),
          sentAt
        );
      throw e;
    }
  );
  tracked.catch(() => undefined);
  // Stopped by the cancellation or, on the clock, by the deadline; the request itself goes on.
  const stop = clock.deadline(waitMs, {
    parents: [signal],
    reason: () => new DeadlineError(`the assignment got no answer within ${waitMs} ms`)
  });
  try {
    return await stop.run(() => tracked);
  } catch (e) {
    if (!stop.signal.aborted) {
      const unknown = unknownOutcome(e);
      if (unknown) {
        logger.warning(
          `The assignment from profile "${profile}" ${unknown}; if the service processed it, a builder may be billed until its idle time-out: check the builders in the web UI`
        );
      }
      throw e;
    }
    const cancelled = signal?.aborted === true;
    const grace = opts.inFlightGraceMs ?? DEFAULT_IN_FLIGHT_GRACE_MS;
    logger.info(
      cancelled
        ? `Cancelled while the assignment was in flight; waiting up to ${grace} ms for its answer to tear it down`
        : `The assignment from profile "${profile}" got no answer within ${waitMs} ms; waiting up to ${grace} ms more for a late answer to tear it down`
    );
    let refused = false;
    const late = await clock
      .deadline(grace)
      .run(() => tracked)
      .catch((err: unknown) => {
        // An HTTP error answer says the service did not assign; anything else leaves the outcome unknown.
        refused = err instanceof ApiError && err.status !== undefined;
        return undefined;
      });
    if (late === undefined && !refused) {
      abandon.abort(new Error('no answer in time'));
      logger.warning(
        cancelled
          ? `The assignment from profile "${profile}" did not answer within ${grace} ms of cancellation; if the service processed it, a builder may still be billed: check the builders in the web UI`
          : `The assignment from profile "${profile}" did not answer within ${clock.now() - sentAt} ms; if the service processed it, a builder may still be billed: check the builders in the web UI`
      );
    }
    if (cancelled) throw new CancelledError(`while assigning a builder from profile "${profile}"`);
    throw new BuilderTimeoutError(
      '',
      `The service did not answer the assignment from profile "${profile}" in time${late ? ` (its late answer, ${late.join(', ')}, is torn down)` : ''}`
    );
  } finally {
    stop.dispose();
  }
}

/**
 * When an assignment failed in a way that leaves open whether the service assigned (and bills) a builder,
 * how to say so: no answer after sending, a 5xx other than 501/503/505 (the service may have created the
 * builder before failing; 503 is retried as "not processed"), or a 2xx answer we cannot read. Undefined
 * when the failure proves nothing was assigned (4xx, never sent) or names what was (PartialAssignError).
 */
function unknownOutcome(e: unknown): string | undefined {
  if (!(e instanceof ApiError) || e instanceof PartialAssignError) return undefined;
  if (e.status === undefined)
    return e.notSent ? undefined : `was sent but got no answer (${e.code ?? 'network error'})`;
  if (e.status >= 500 && e.status !== 501 && e.status !== 503 && e.status !== 505) {
    return `failed with HTTP ${e.status}, which does not say whether a builder was assigned first`;
  }
  if (e.status >= 200 && e.status <= 299) return `got an answer that could not be read (HTTP ${e.status})`;
  return undefined;
}
