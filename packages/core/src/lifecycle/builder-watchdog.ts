import {systemClock, type Clock} from '../clock.js';
import {DeadlineError} from '../deadline.js';
import {errorMessage} from '../errors.js';
import {nullLogger, type Logger} from '../logger.js';
import type {BuilderApi} from '../api/builder-api.js';
import {goneAnswerOf} from './builder-health.js';
import {lostStatusOf} from './details-verdict.js';
import type {ReadyBuilder} from './readiness.js';
import {registerSecret} from '../register-secret.js';
import type {TlsProbe} from './tls-probe.js';

export interface BuilderWatchdogOpts {
  api: BuilderApi;
  probe: TlsProbe;
  clock?: Clock;
  logger?: Logger;
  /** The builders the build runs on, as readiness returned them. */
  builders: ReadyBuilder[];
  /** Period of the checks of each builder, start-to-start. Default 5000. */
  intervalMs?: number;
  /** A builder without a successful TLS probe for this long is lost. Default 20000. */
  lostAfterMs?: number;
  /** Time limit of one TLS probe. Default 5000. */
  probeTimeoutMs?: number;
  /** Time limit of one details request. Default 10000. */
  detailsTimeoutMs?: number;
}

export const DEFAULT_WATCH_INTERVAL_MS = 5000;
export const DEFAULT_LOST_AFTER_MS = 20_000;
export const DEFAULT_WATCH_PROBE_TIMEOUT_MS = 5000;
export const DEFAULT_WATCH_DETAILS_TIMEOUT_MS = 10_000;
/** A probe still running this long after its own time limit is abandoned (and counts as a failure). */
const PROBE_GRACE_MS = 1000;

/** A builder was lost while the build ran on it: an infrastructure failure, worth a retry on a new builder. */
export class BuilderLostError extends Error {
  constructor(
    readonly builderId: string,
    /** What showed it: `its status is "failed"`, `unreachable for 21 s (last: …)`, … */
    readonly why: string
  ) {
    super(`Builder ${builderId} was lost during the build: ${why}`);
    this.name = 'BuilderLostError';
  }
}

/**
 * BuilderWatchdog watches builders while a build runs on them, so that a builder the service lost ends the
 * build at once instead of leaving it hanging (and billed) until the job's time limit. Every intervalMs, per
 * builder, it asks for the details and probes mutual TLS, each in its own loop (a slow API never delays the
 * probes). A builder is lost when its details say failed/error/terminated/deleted or answer 404/410, or when
 * no probe has succeeded for lostAfterMs. API errors alone never make a builder lost: the service's API being
 * down does not mean the builder is. `signal` aborts with a BuilderLostError at the first lost builder;
 * `stop()` ends all watching.
 */
export class BuilderWatchdog {
  readonly #api: BuilderApi;
  readonly #probe: TlsProbe;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #builders: ReadyBuilder[];
  readonly #intervalMs: number;
  readonly #lostAfterMs: number;
  readonly #probeTimeoutMs: number;
  readonly #detailsTimeoutMs: number;
  /** Aborted with the BuilderLostError; the build links to it. */
  readonly #lost = new AbortController();
  /** Aborted when watching ends (stop() or a lost builder): ends every loop and in-flight call. */
  readonly #halt = new AbortController();
  readonly #loops: Promise<void>[] = [];
  #started = false;

  constructor(opts: BuilderWatchdogOpts) {
    this.#api = opts.api;
    this.#probe = opts.probe;
    this.#clock = opts.clock ?? systemClock;
    this.#logger = opts.logger ?? nullLogger;
    this.#builders = [...opts.builders];
    this.#intervalMs = positive('intervalMs', opts.intervalMs ?? DEFAULT_WATCH_INTERVAL_MS);
    this.#lostAfterMs = positive('lostAfterMs', opts.lostAfterMs ?? DEFAULT_LOST_AFTER_MS);
    this.#probeTimeoutMs = positive('probeTimeoutMs', opts.probeTimeoutMs ?? DEFAULT_WATCH_PROBE_TIMEOUT_MS);
    this.#detailsTimeoutMs = positive('detailsTimeoutMs', opts.detailsTimeoutMs ?? DEFAULT_WATCH_DETAILS_TIMEOUT_MS);
  }

  /** Aborts with a BuilderLostError as soon as one builder is lost; never aborts otherwise. */
  get signal(): AbortSignal {
    return this.#lost.signal;
  }

  /** The error `signal` aborted with, once a builder was lost. */
  get lostError(): BuilderLostError | undefined {
    return this.#lost.signal.aborted ? (this.#lost.signal.reason as BuilderLostError) : undefined;
  }

  /** Begins watching; the first checks come one interval later (the builders were just found ready). */
  start(): void {
    if (this.#started || this.#halt.signal.aborted || this.#builders.length === 0) return;
    this.#started = true;
    const n = this.#builders.length;
    this.#logger.info(
      `Watching ${n} builder${n === 1 ? '' : 's'} during the build (every ${seconds(this.#intervalMs)}; lost after ${seconds(this.#lostAfterMs)} unreachable)`
    );
    for (const builder of this.#builders) {
      const reach = {lastReachable: this.#clock.now()};
      this.#loops.push(
        this.#every(() => this.#checkDetails(builder)),
        this.#every(() => this.#checkReach(builder, reach))
      );
    }
  }

  /**
   * Ends watching: every loop, timer and in-flight request or probe. Once it resolves nothing more is sent,
   * even by a collaborator that ignores its abort signal. Idempotent; does not abort `signal`.
   */
  async stop(): Promise<void> {
    this.#halt.abort(new Error('BuilderWatchdog stopped: the build ended'));
    await Promise.all(this.#loops);
  }

  /** Runs `check` every interval (start-to-start) until halted. `check` never throws. */
  async #every(check: () => Promise<void>): Promise<void> {
    const halt = this.#halt.signal;
    let next = this.#clock.now() + this.#intervalMs;
    try {
      for (;;) {
        const wait = next - this.#clock.now();
        if (wait > 0) await this.#clock.sleep(wait, halt);
        if (halt.aborted) return;
        next = this.#clock.now() + this.#intervalMs;
        await check();
        if (halt.aborted) return;
      }
    } catch (e) {
      // Only the sleep throws, and only when halted.
      if (!halt.aborted) this.#logger.debug(`BuilderWatchdog: a watch loop ended unexpectedly: ${errorMessage(e)}`);
    }
  }

  async #checkDetails(builder: ReadyBuilder): Promise<void> {
    const id = builder.id;
    try {
      const details = await this.#limited(
        this.#detailsTimeoutMs,
        `the details request got no answer within ${this.#detailsTimeoutMs} ms`,
        signal => this.#api.getBuilderDetails(id, {signal, retry: false})
      );
      if (this.#halt.signal.aborted) return;
      const key = details.metadata?.client_key;
      if (typeof key === 'string' && key !== builder.pems.key) registerSecret(this.#logger, key);
      const lost = lostStatusOf(details);
      if (lost) return this.#lose(id, lost);
      this.#logger.debug(`BuilderWatchdog: ${id}: details say status "${details.status ?? '(none)'}"`);
    } catch (e) {
      if (this.#halt.signal.aborted) return;
      const gone = goneAnswerOf(e);
      if (gone) return this.#lose(id, gone);
      this.#logger.debug(
        `BuilderWatchdog: ${id}: details check failed (not a sign of a lost builder): ${errorMessage(e)}`
      );
    }
  }

  async #checkReach(builder: ReadyBuilder, reach: {lastReachable: number}): Promise<void> {
    const {hostname, port} = builder.endpoint;
    const where = `${hostname}:${port}`;
    const timeoutMs = this.#probeTimeoutMs;
    try {
      await this.#limited(timeoutMs + PROBE_GRACE_MS, `no TLS handshake with ${where} within ${timeoutMs} ms`, signal =>
        this.#probe({hostname, port, pems: builder.pems, timeoutMs, signal})
      );
      if (this.#halt.signal.aborted) return;
      reach.lastReachable = this.#clock.now();
      this.#logger.debug(`BuilderWatchdog: ${builder.id}: TLS check of ${where} succeeded`);
    } catch (e) {
      if (this.#halt.signal.aborted) return;
      // A 'rejected' verdict counts too: the material was accepted minutes ago, so the builder changed.
      const down = this.#clock.now() - reach.lastReachable;
      if (down >= this.#lostAfterMs) {
        return this.#lose(builder.id, `unreachable for ${seconds(down)} (last: ${errorMessage(e)})`);
      }
      this.#logger.debug(
        `BuilderWatchdog: ${builder.id}: TLS check of ${where} failed (unreachable for ${seconds(down)} of ${seconds(this.#lostAfterMs)}): ${errorMessage(e)}`
      );
    }
  }

  #lose(builderId: string, why: string): void {
    if (this.#halt.signal.aborted) return;
    const lost = new BuilderLostError(builderId, why);
    this.#logger.debug(`BuilderWatchdog: ${lost.message}`);
    this.#lost.abort(lost);
    this.#halt.abort(new Error(`BuilderWatchdog stopped: builder ${builderId} was lost`));
  }

  /**
   * Runs one call with a signal that aborts at the time limit (on the clock, so tests drive it) or when
   * watching ends; settles at that moment even if the call ignores its signal.
   */
  #limited<T>(ms: number, onTimeout: string, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
    return this.#clock
      .deadline(ms, {parents: [this.#halt.signal], reason: () => new DeadlineError(onTimeout)})
      .run(call);
  }
}

function positive(name: string, ms: number): number {
  if (!(ms > 0) || !Number.isFinite(ms)) {
    throw new Error(`BuilderWatchdog: ${name} must be a positive number of milliseconds, got ${ms}`);
  }
  return ms;
}

/** 5000 → "5 s", 250 → "0.25 s". */
function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(ms >= 10_000 ? 0 : 2))} s`;
}
