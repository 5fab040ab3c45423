import {systemClock} from '../clock.js';
import {errorMessage} from '../errors.js';
import type {BuilderApi} from '../api/builder-api.js';
import {checkBuilderHealth} from '../lifecycle/builder-health.js';
import {BuilderWatchdog, type BuilderWatchdogOpts} from '../lifecycle/builder-watchdog.js';
import {CancelledError} from '../lifecycle/cancelled-error.js';
import type {ReadyBuilder} from '../lifecycle/readiness.js';
import type {TlsProbe} from '../lifecycle/tls-probe.js';
import type {Logger} from '../logger.js';
import type {AttemptRecord, RunResult} from '../report/run-record.js';
import {classifyBuildFailure, type BuildFailureClass} from '../docker/build-failure.js';
import {parseCacheReport, type CacheReport} from '../docker/cache-report.js';

/** A build command (docker buildx build/bake) that ran and failed: its output is what classifies it. */
export class BuildCommandError extends Error {
  constructor(
    message: string,
    /** stdout and stderr of the command (never shown whole: classified, and its tail reported). */
    readonly output: string
  ) {
    super(message);
    this.name = 'BuildCommandError';
  }
}

/** What a build reports about one run of its command, for the attempt record and the cache report. */
export interface BuildRunFacts {
  buildMs: number;
  /** The command's output (buildx's progress goes to stderr). */
  output: string;
  /** Bake: the targets built, for the per-target cache breakdown. */
  targets?: string[];
}

/** What one attempt of the build gets besides the target. */
export interface BuildContext {
  /** Aborted on cancellation, and when the watchdog finds a builder lost. */
  signal?: AbortSignal;
  /** 1 for the first build, 2 for the first retry, … */
  attempt: number;
  /** The build calls this once its command has run (success or failure). */
  reportRun(facts: BuildRunFacts): void;
  /** The build calls this once it succeeded: what it produced, for the job summary. */
  reportResult(result: RunResult): void;
}

/** The builders an attempt runs on, and how to get new ones when they are lost. */
export interface AttemptBuilders<T> {
  /** The ready builders (for the watchdog and the health check). */
  ready: ReadyBuilder[];
  /** What the build needs to run on them. */
  target: T;
}

export interface BuildAttemptsOpts<T, R> {
  /** Extra builds allowed after an infrastructure failure (the `retries` input); 0 turns retrying off. */
  retries: number;
  api: BuilderApi;
  probe: TlsProbe;
  logger: Logger;
  /** Cancellation (SIGINT/SIGTERM): never retried. */
  signal?: AbortSignal;
  first: AttemptBuilders<T>;
  /** Runs the build once on `target`. */
  build: (target: T, ctx: BuildContext) => Promise<R>;
  /** Tears the lost builders down and assigns new ones (within what is left of the timeout). */
  replace: (why: string) => Promise<AttemptBuilders<T>>;
  /** Told of every attempt as it ends. */
  onAttempt?: (a: AttemptRecord) => void;
  /** Told what the build produced (BuildContext.reportResult). */
  onResult?: (r: RunResult) => void;
  /**
   * Asked before a retry on the same builders (an infrastructure failure while our own check still finds them
   * ready): an error when buildx itself cannot use them (buildxDisagreement), which ends the attempts with it
   * instead of a blind retry that would fail the same way.
   */
  crossCheck?: (ready: ReadyBuilder[]) => Promise<Error | undefined>;
  /** Watchdog timing and clock (tests); production defaults and real time otherwise. */
  watch?: Pick<BuilderWatchdogOpts, 'intervalMs' | 'lostAfterMs' | 'probeTimeoutMs' | 'detailsTimeoutMs' | 'clock'>;
}

export interface BuildAttemptsResult<R> {
  result: R;
  /** Builds run, the successful one included. */
  attempts: number;
  /** The cache report of the successful build, when buildx printed its progress. */
  cache?: CacheReport;
}

/** The build failed after its attempts: how many, and why the last one failed. */
export class BuildAttemptsError extends Error {
  constructor(
    message: string,
    readonly attempts: number,
    readonly failure: BuildFailureClass,
    options?: ErrorOptions
  ) {
    super(message, options);
    this.name = 'BuildAttemptsError';
  }
}

/**
 * Runs a build with safe automatic retries. While each build runs, a watchdog watches its builders (details
 * and a TLS probe every few seconds) and stops the build as soon as one is lost. A failed build is
 * classified: only infrastructure failures (a lost builder, a dropped builder connection, a registry 5xx or
 * reset) are retried, at most `retries` times; the user's own failures and unknown ones never are. Before a
 * retry the builders are checked: still ready → the same builders (their cache is warm); not → `replace`.
 * Cancellation is never retried. Attempts are reported as they end.
 */
export async function runBuildAttempts<T, R>(opts: BuildAttemptsOpts<T, R>): Promise<BuildAttemptsResult<R>> {
  const {logger} = opts;
  const total = opts.retries + 1;
  let current = opts.first;
  for (let attempt = 1; ; attempt++) {
    const watchdog = new BuilderWatchdog({
      api: opts.api,
      probe: opts.probe,
      logger,
      builders: current.ready,
      // Real time unless a test gives the watchdog its own clock: it runs beside a real build.
      ...opts.watch
    });
    watchdog.start();
    const limit = systemClock.deadline(undefined, {parents: [opts.signal, watchdog.signal]});
    let facts: BuildRunFacts | undefined;
    const ids = current.ready.map(b => b.id);
    let result: R;
    let lost: Error | undefined;
    try {
      result = await opts.build(current.target, {
        signal: limit.signal,
        attempt,
        reportRun: f => {
          facts = f;
        },
        reportResult: r => opts.onResult?.(r)
      });
    } catch (e) {
      lost = watchdog.lostError;
      await watchdog.stop();
      limit.dispose();
      const buildMs = facts?.buildMs;
      if (opts.signal?.aborted) {
        opts.onAttempt?.({
          n: attempt,
          builderIds: ids,
          outcome: 'cancelled',
          buildMs
        });
        throw e;
      }
      const failure: BuildFailureClass = lost
        ? {kind: 'infrastructure', reason: errorMessage(lost)}
        : e instanceof BuildCommandError
          ? classifyBuildFailure(e.output)
          : // Not the build command: a check of ours (platforms, exporters) that would fail again.
            {kind: 'user', reason: errorMessage(e)};
      // What the failed build ran before it failed, from the cache or not, is part of its story too.
      const cache = facts ? parseCacheReport(facts.output, facts.targets ? {targets: facts.targets} : {}) : undefined;
      opts.onAttempt?.({
        n: attempt,
        builderIds: ids,
        outcome: failure.kind,
        reason: failure.reason,
        buildMs,
        cache
      });
      if (failure.kind !== 'infrastructure' || attempt >= total) throw gaveUp(e, lost, failure, attempt, opts.retries);

      // The same builders when they are still ready (warm cache); new ones otherwise.
      const health = lost ? {ready: false as const, why: errorMessage(lost)} : await healthOf(current.ready, opts);
      const disagreement = health.ready ? await opts.crossCheck?.(current.ready) : undefined;
      if (disagreement) {
        throw new BuildAttemptsError(`${errorMessage(e)}. ${disagreement.message}`, attempt, failure, {
          cause: disagreement
        });
      }
      if (health.ready) {
        logger.info(
          `Retrying the build (attempt ${attempt + 1} of ${total}) on the same builder ${ids.join(', ')}: ${failure.reason}`
        );
      } else {
        const why = health.why === failure.reason ? health.why : `${health.why}; ${failure.reason}`;
        logger.info(`Retrying the build (attempt ${attempt + 1} of ${total}) on a new builder: ${why}`);
        current = await opts.replace(health.why);
      }
      continue;
    }
    await watchdog.stop();
    limit.dispose();
    const cache = facts ? parseCacheReport(facts.output, facts.targets ? {targets: facts.targets} : {}) : undefined;
    opts.onAttempt?.({
      n: attempt,
      builderIds: ids,
      outcome: 'success',
      buildMs: facts?.buildMs,
      cache
    });
    return {result, attempts: attempt, cache};
  }
}

/** Whether every builder is still ready; the first that is not says why. */
async function healthOf(
  ready: ReadyBuilder[],
  opts: Pick<BuildAttemptsOpts<unknown, unknown>, 'api' | 'probe' | 'signal'>
): Promise<{ready: true} | {ready: false; why: string}> {
  const checks = await Promise.all(
    ready.map(async b => ({
      id: b.id,
      health: await checkBuilderHealth(b, {
        api: opts.api,
        probe: opts.probe,
        signal: opts.signal
      })
    }))
  );
  const bad = checks.find(c => !c.health.ready);
  if (!bad || bad.health.ready) return {ready: true};
  return {ready: false, why: `builder ${bad.id} is no longer ready (${bad.health.why})`};
}

/** The error that ends the attempts: the build's own message, and for retried builds how many ran and why. */
function gaveUp(
  e: unknown,
  lost: Error | undefined,
  failure: BuildFailureClass,
  attempts: number,
  retries: number
): Error {
  if (e instanceof CancelledError && !lost) return e;
  const base = lost ? `${errorMessage(lost)}; the build was stopped` : errorMessage(e);
  if (failure.kind !== 'infrastructure') return new BuildAttemptsError(base, attempts, failure, {cause: e});
  const why =
    retries === 0
      ? `an infrastructure failure (${failure.reason}); retries is 0, so it was not retried`
      : `an infrastructure failure (${failure.reason}) after ${attempts} attempts (retries: ${retries}); raise "retries" to try more often`;
  return new BuildAttemptsError(`${base}. The build failed with ${why}`, attempts, failure, {cause: e});
}
