import {ApiError, errorMessage} from '../errors.js';
import {type Clock, systemClock} from '../clock.js';
import {DeadlineError} from '../deadline.js';
import type {Logger} from '../logger.js';
import {nullLogger} from '../logger.js';
import type {BuilderApi} from '../api/builder-api.js';
import {type Buildx, BuildxError} from '../buildx/buildx.js';
import {type BuilderState, pendingBuilderIds} from '../state.js';
import type {TeardownLimits} from './teardown-limits.js';

export interface TeardownReport {
  /** Torn down by this call. */
  tornDown: string[];
  /** The service answered 404: already gone. */
  alreadyGone: string[];
  /** Still possibly billed. */
  failed: {id: string; error: string}[];
}

export interface TeardownOpts {
  logger?: Logger;
  clock?: Clock;
  /** Most rounds per builder (default: as many as the budget allows); each round is one request. */
  attempts?: number;
  /** Pause after the first failed round; doubles per round up to MAX_PAUSE_MS. */
  pauseMs?: number;
  /** The whole budget: waits are cut to fit it, and what is not done by then is reported as failed. */
  timeoutMs?: number;
}

/** A report of nothing done. */
export function noTeardown(): TeardownReport {
  return {tornDown: [], alreadyGone: [], failed: []};
}

/** What became of the buildx builder: `none` when there was none to remove (or it was not to be touched). */
export type BuildxRemoval = 'removed' | 'absent' | 'forgotten' | 'failed' | 'none';

export interface StateTeardownOpts {
  /** The API client, asked for only when a builder is pending; one that throws fails each of them with its message. */
  api: () => BuilderApi;
  buildx: Pick<Buildx, 'rm' | 'forget'>;
  logger: Logger;
  clock?: Clock;
  limits: TeardownLimits;
  /** Saves `state` (called after each change to it). */
  save?: () => void;
  /** Told of the teardown requests' report once `state` records it, before `buildx rm` is waited for. */
  onTornDown?: (report: TeardownReport) => Promise<void> | void;
  /** False leaves the builders alone (post's guard refused the state's service URL). */
  builders?: boolean;
  /** False leaves the buildx builder alone (post's guard refused its name). */
  buildxBuilder?: boolean;
}

/**
 * The one teardown, from a builder state (main's own, post's and `builder down`'s as saved): tears every
 * pending builder down (billing stops) and, at the same time, removes the buildx builder while its endpoints
 * still answer; an rm that stalls is replaced by removing the builder's record (Buildx.forget). Records what
 * it achieved in `state` (tornDownIds, buildxCreated). Never throws: the report says what may still be billed.
 */
export async function tearDownState(
  state: BuilderState,
  opts: StateTeardownOpts
): Promise<{report: TeardownReport; buildx: BuildxRemoval}> {
  const pending = opts.builders === false ? [] : pendingBuilderIds(state);
  const requests = async (): Promise<TeardownReport> => {
    const report = await tearDownIds(pending, opts);
    state.tornDownIds.push(...report.tornDown, ...report.alreadyGone);
    opts.save?.();
    await opts.onTornDown?.(report);
    return report;
  };
  const remove = async (): Promise<BuildxRemoval> => {
    if (opts.buildxBuilder === false || !state.buildxCreated) return 'none';
    const removal = await removeBuildxBuilder(state.builderName, opts);
    if (removal !== 'failed') {
      state.buildxCreated = false;
      opts.save?.();
    }
    return removal;
  };
  const [report, buildx] = await Promise.all([requests(), remove()]);
  return {report, buildx};
}

async function tearDownIds(pending: string[], opts: StateTeardownOpts): Promise<TeardownReport> {
  if (pending.length === 0) return noTeardown();
  let api: BuilderApi;
  try {
    api = opts.api();
  } catch (e) {
    return {tornDown: [], alreadyGone: [], failed: pending.map(id => ({id, error: errorMessage(e)}))};
  }
  return teardownBuilders(api, pending, {logger: opts.logger, clock: opts.clock, timeoutMs: opts.limits.budgetMs});
}

/** `buildx rm` within its limit; a stalled one forgets the builder instead. What fails is warned about. */
async function removeBuildxBuilder(name: string, opts: StateTeardownOpts): Promise<BuildxRemoval> {
  try {
    return await opts.buildx.rm(name, {timeoutMs: opts.limits.rmMs});
  } catch (e) {
    if (e instanceof BuildxError && e.timedOut && opts.buildx.forget(name)) {
      opts.logger.info(`buildx rm "${name}" stalled; removed its record from buildx's store instead`);
      return 'forgotten';
    }
    opts.logger.warning(errorMessage(e));
    return 'failed';
  }
}

/** Longest pause between two rounds without a Retry-After. */
export const MAX_PAUSE_MS = 4000;
/** Kept free at the end of the budget for one last request: no wait may eat into it. */
export const LAST_ATTEMPT_RESERVE_MS = 1000;

/**
 * Tears every builder down, concurrently, each retried until it is gone or the budget ends; 404 counts as
 * already gone. A billed builder is worth every second of the budget, so the rounds are not counted but
 * timed: a Retry-After (even of minutes) or a backoff pause is cut to what the budget leaves, minus the
 * time for one last try. Only answers that will not change (401, 403, other 4xx) stop the rounds early.
 * Never throws: the report says what may still be billed. Safe to call again with the same ids.
 */
export async function teardownBuilders(
  api: BuilderApi,
  ids: string[],
  opts: TeardownOpts = {}
): Promise<TeardownReport> {
  const logger = opts.logger ?? nullLogger;
  const clock = opts.clock ?? systemClock;
  const attempts = opts.attempts ?? Infinity;
  const pauseMs = opts.pauseMs ?? 500;
  const budgetMs = opts.timeoutMs ?? 30000;
  const deadline = clock.now() + budgetMs;
  // The budget also cuts a request in flight.
  const limit = clock.deadline(budgetMs, {
    reason: () => new DeadlineError(`no answer within the teardown budget of ${budgetMs} ms`)
  });
  const {signal} = limit;
  const report: TeardownReport = {tornDown: [], alreadyGone: [], failed: []};

  try {
    await Promise.all(
      [...new Set(ids)].map(async id => {
        let lastError = '';
        let lastChance = false;
        for (let round = 1; round <= attempts && !signal.aborted; round++) {
          try {
            const res = await api.teardownBuilder(id, {signal, retry: false});
            if (res.alreadyGone) {
              report.alreadyGone.push(id);
              logger.info(`Builder ${id} was already gone`);
            } else {
              report.tornDown.push(id);
              logger.info(`Builder ${id} torn down`);
            }
            return;
          } catch (e) {
            // When the budget cuts a request short, the answer before it says more about why.
            lastError =
              e instanceof DeadlineError && lastError !== '' ? `${lastError}; then ${e.message}` : errorMessage(e);
            logger.debug(`teardownBuilders: ${id} round ${round}: ${lastError}`);
            if (!worthAnotherRound(e) || round >= attempts) break;
            const left = deadline - clock.now() - LAST_ATTEMPT_RESERVE_MS;
            const asked =
              e instanceof ApiError && e.retryAfterMs !== undefined
                ? e.retryAfterMs
                : Math.min(MAX_PAUSE_MS, pauseMs * 2 ** (round - 1));
            if (left <= 0) {
              // Inside the reserve: one immediate last try, then give up.
              if (lastChance || deadline - clock.now() <= 0) break;
              lastChance = true;
              continue;
            }
            const wait = Math.min(asked, left);
            if (wait < asked)
              logger.debug(`teardownBuilders: ${id}: waiting ${wait} ms, not ${asked}: the budget ends`);
            await clock.sleep(wait, signal).catch(() => undefined);
          }
        }
        if (signal.aborted && lastError === '') lastError = 'no time left to tear it down';
        report.failed.push({id, error: lastError});
      })
    );
  } finally {
    limit.dispose();
  }
  return report;
}

/** Another round may help: no answer, 408, 429, 5xx, or anything not from the API. A 4xx answer will not change. */
function worthAnotherRound(e: unknown): boolean {
  if (!(e instanceof ApiError) || e.status === undefined) return true;
  return e.status === 408 || e.status === 429 || e.status >= 500;
}
