import {KILL_GRACE_MS, PIPE_DRAIN_MS} from '../exec.js';
import {Env, envMilliseconds} from '../inputs.js';

/** What one teardown may take: the service's teardown requests, and `buildx rm` run beside them. */
export interface TeardownLimits {
  /** The whole budget of the teardown requests (see teardownBuilders). */
  budgetMs: number;
  /** `buildx rm`: one that stalls is cut here and the builder forgotten instead (Buildx.forget). */
  rmMs: number;
}

/**
 * Who tears down: main (after its build, or after a failure), main cancelled (the runner kills the step 10 s
 * after SIGINT), or post and `builder down` (billing ends there: the longest budget).
 */
export type TeardownBy = 'main' | 'cancelled' | 'post';

/** Default budget of the teardown in post (and `builder down`): the builder is billed while it runs. */
export const DEFAULT_TEARDOWN_TIMEOUT_MS = 30_000;

/** Default budget of the teardown main does after its build, a failure or a timeout (post retries what is left). */
export const DEFAULT_MAIN_TEARDOWN_TIMEOUT_MS = 15_000;

/** Time allowed for tearing down after a cancellation: the runner kills the step 10 s after SIGINT. */
export const CANCEL_TEARDOWN_MS = 5000;

/**
 * How long `buildx rm` may take, in main's release and in post alike: a builder's files go in ~0.1 s, and an
 * rm that stalls on a node that no longer answers (buildx < 0.36 loads its nodes) is cut there and the builder
 * forgotten (Buildx.forget). 5 s leaves a loaded runner's rm its time (post's old 1.5 s cut 16 parallel jobs'
 * rm on 2 cores) and costs a stalled one little; the cancel path has its own, shorter budget.
 */
export const BUILDX_RM_TIMEOUT_MS = 5000;

/**
 * The limits of a teardown by `by`: the budget REMOTE_BUILDER_TEARDOWN_TIMEOUT_MS sets (else the default of
 * `by`), `buildx rm` within BUILDX_RM_TIMEOUT_MS. Cancelled, both fit before the runner's kill: docker took up
 * to KILL_GRACE_MS + PIPE_DRAIN_MS to stop, and rm leaves that room. Throws an InputError on a bad variable.
 */
export function teardownLimits(by: TeardownBy, env: NodeJS.ProcessEnv): TeardownLimits {
  if (by === 'cancelled') {
    return {budgetMs: CANCEL_TEARDOWN_MS, rmMs: CANCEL_TEARDOWN_MS - KILL_GRACE_MS - PIPE_DRAIN_MS};
  }
  const fallback = by === 'main' ? DEFAULT_MAIN_TEARDOWN_TIMEOUT_MS : DEFAULT_TEARDOWN_TIMEOUT_MS;
  return {budgetMs: resolveTeardownTimeoutMs(env, fallback), rmMs: BUILDX_RM_TIMEOUT_MS};
}

/**
 * A teardown budget: REMOTE_BUILDER_TEARDOWN_TIMEOUT_MS when set (1000 to 600000 ms), else `fallback` (30000 for
 * post and the CLI, DEFAULT_MAIN_TEARDOWN_TIMEOUT_MS for main). Rounds of teardown fill it while the service
 * refuses (see teardownBuilders).
 */
export function resolveTeardownTimeoutMs(env: NodeJS.ProcessEnv, fallback = DEFAULT_TEARDOWN_TIMEOUT_MS): number {
  return envMilliseconds(env, Env.TeardownTimeoutMs, {min: 1000, fallback, what: 'a teardown budget'});
}
