import type {BuilderApi} from '../api/builder-api.js';
import type {BuilderDetails} from '../api/types.js';
import {DeadlineError} from '../deadline.js';
import {ApiError, errorMessage} from '../errors.js';
import {detailsVerdict} from './details-verdict.js';
import {readyBuilder, type ReadyBuilder} from './ready-builder.js';
import {BuilderFailedError} from './readiness-errors.js';
import {detailsPeriod, notReadyInTime, type ReadinessWait} from './readiness-wait.js';
import {registerSecret} from '../register-secret.js';

const FATAL_STATUSES = new Set([401, 403]);
/**
 * How long answers in a row may say status "ready" without the TLS material before the details are declared
 * broken (a service may write the status a moment before the material), and the fewest such answers.
 */
const READY_BUT_INCOMPLETE_MS = 2000;
const MIN_READY_BUT_INCOMPLETE = 3;
/** Most a 429 or Retry-After may stretch one builder's details period (a longer Retry-After is still honoured once). */
const MAX_THROTTLED_PERIOD_MS = 5000;

/** The details once complete, and when the round that asked for them started. */
export interface CompleteDetails {
  ready: ReadyBuilder;
  startedAt: number;
}

/**
 * DetailsPoller asks for one builder's details on the wait's schedule until they are complete (host and TLS
 * material usable, status ready or absent): errors back off (doubling up to maxBackoffMs), a 429 or a
 * Retry-After slows this builder's polling for the rest of the wait, a 404 within the grace after the
 * assignment is "not visible yet", 401/403 and a lost or broken builder fail at once. The deadline fails
 * with the last thing that was wrong, and says whether the service was what failed.
 */
export class DetailsPoller {
  #requests = 0;
  #lastProblem = 'no details received yet';
  #serviceFailure: string | undefined;
  #serviceSilent = false;
  /** Whether the service answered anything (an error status too): a deadline cutting a later request is not its answer. */
  #answered = false;
  #consecutiveErrors = 0;
  #readyButIncomplete = 0;
  #readyButIncompleteSince = 0;
  /** The details period a 429 or Retry-After imposed: kept for the rest of this wait (0: none). */
  #throttled = 0;

  constructor(
    private readonly wait: ReadinessWait,
    private readonly api: BuilderApi,
    /** How long after the assignment a details 404 means "not visible yet". */
    private readonly graceMs: number
  ) {}

  async complete(): Promise<CompleteDetails> {
    const w = this.wait;
    for (;;) {
      const started = w.round(notReadyInTime(this.#lastProblem, this.#serviceFailure, this.#serviceSilent));
      const period = Math.max(detailsPeriod(w.schedule, started - w.since), this.#throttled);
      const outcome = await this.#ask(started, period);
      if (typeof outcome !== 'number') return {ready: outcome, startedAt: started};
      await w.pause(started, outcome);
    }
  }

  /** One details request: the builder once complete, else how long to wait before the next. */
  async #ask(started: number, period: number): Promise<ReadyBuilder | number> {
    const w = this.wait;
    // Each request ends at the deadline (a hanging request must not carry us past it), with a reason that says so.
    const limit = w.clock.deadline(w.left(), {
      parents: [w.opts.signal],
      reason: () => new DeadlineError(`the details request got no answer before the readiness deadline`)
    });
    try {
      this.#requests++;
      const details = await this.api.getBuilderDetails(w.builderId, {signal: limit.signal, retry: false});
      return this.#answer(details, started) ?? period;
    } catch (e) {
      if (e instanceof BuilderFailedError) throw e;
      w.opts.signal?.throwIfAborted();
      return this.#failure(e, period);
    } finally {
      limit.dispose();
    }
  }

  #answer(details: BuilderDetails, started: number): ReadyBuilder | undefined {
    const w = this.wait;
    const id = w.builderId;
    this.#serviceFailure = undefined;
    this.#answered = true;
    this.#consecutiveErrors = 0;
    // The key is secret from the moment it arrives, before anything could print it.
    const key = details.metadata?.client_key;
    if (typeof key === 'string' && key) registerSecret(w.opts.logger, key);
    const verdict = detailsVerdict(details);
    switch (verdict.kind) {
      case 'complete':
        return readyBuilder(id, {details, endpoint: verdict.endpoint}, this.#requests);
      case 'lost': {
        const status = verdict.status.toLowerCase();
        throw new BuilderFailedError(
          id,
          status === 'failed' || status === 'error'
            ? `Builder ${id} failed to start (status "${verdict.status}")`
            : `Builder ${id} was terminated before it became ready`
        );
      }
      case 'broken':
        throw new BuilderFailedError(id, `Builder ${id} ${verdict.why}`);
    }
    this.#lastProblem = verdict.why;
    w.observe({kind: 'pending', status: verdict.status, missing: verdict.missing}, verdict.why);
    this.#readyButIncomplete = verdict.saysReady ? this.#readyButIncomplete + 1 : 0;
    if (this.#readyButIncomplete === 1) this.#readyButIncompleteSince = started;
    if (
      this.#readyButIncomplete >= MIN_READY_BUT_INCOMPLETE &&
      w.clock.now() - this.#readyButIncompleteSince >= READY_BUT_INCOMPLETE_MS
    ) {
      throw new BuilderFailedError(
        id,
        `Builder ${id} reports status "ready" but its details lack ${verdict.missing.join(', ')}: the service sent incomplete connection details`
      );
    }
    return undefined;
  }

  /** A failed request: rethrown when fatal, else how long to wait before the next. */
  #failure(e: unknown, period: number): number {
    const w = this.wait;
    if (e instanceof ApiError && e.status !== undefined && FATAL_STATUSES.has(e.status)) throw e;
    // Any HTTP answer, an error status too, is what the service said: a deadline that cuts a later request
    // in flight does not replace it.
    if (e instanceof ApiError && e.status !== undefined) this.#answered = true;
    if (e instanceof ApiError && e.status === 404) {
      if (w.clock.now() - w.since >= this.graceMs) throw e;
      // Not visible yet is like pending, not like a failure: polled at the normal pace, no backoff.
      this.#lastProblem = `the service does not show builder ${w.builderId} yet (details answered HTTP 404 within ${this.graceMs} ms of the assignment)`;
      this.#serviceFailure = undefined;
      w.observe({kind: 'not-visible'}, this.#lastProblem);
      return period;
    }
    if (!(e instanceof DeadlineError && this.#answered)) {
      // (When the deadline cut a request in flight, what the service last said is still the reason.)
      this.#lastProblem = errorMessage(e);
      this.#serviceFailure = this.#lastProblem;
      this.#serviceSilent = e instanceof DeadlineError || (e instanceof ApiError && e.code === 'ETIMEDOUT');
    }
    this.#consecutiveErrors++;
    let wait = Math.min(w.schedule.maxBackoffMs, period * 2 ** this.#consecutiveErrors);
    // Asked to slow down: this builder's period doubles for the rest of the wait (up to 5 s), and a
    // Retry-After is waited out once, however long (the deadline still cuts it).
    const asked = e instanceof ApiError ? e.retryAfterMs : undefined;
    if (e instanceof ApiError && (e.status === 429 || asked !== undefined)) {
      this.#throttled = Math.min(MAX_THROTTLED_PERIOD_MS, Math.max(period * 2, this.#throttled * 2));
      wait = Math.max(wait, this.#throttled, asked ?? 0);
    }
    w.observe({kind: 'service-error', error: errorKind(e)}, errorMessage(e));
    return wait;
  }
}

/** What kind of failure a details request met, for change detection: not its message (which may vary). */
function errorKind(e: unknown): string {
  if (e instanceof ApiError) return e.status !== undefined ? `HTTP ${e.status}` : (e.code ?? 'network error');
  if (e instanceof DeadlineError) return 'no answer';
  return e instanceof Error ? e.name : 'error';
}
