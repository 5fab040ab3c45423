import type {Clock} from '../clock.js';
import type {Logger} from '../logger.js';
import {BuilderTimeoutError} from './readiness-errors.js';
import type {BuilderStage, ReadinessProgress} from './readiness-progress.js';

/** How often readiness polls. Start-to-start, so API latency does not stretch the period. */
export interface PollSchedule {
  /** Period between details requests while the builder is pending (until the first slowdown). */
  intervalMs: number;
  /** Period between TLS probes once the details are complete. */
  probeIntervalMs: number;
  /** Longest wait after consecutive errors (backoff doubles from intervalMs up to this). */
  maxBackoffMs: number;
  /** Longer details periods once the wait has lasted `afterMs`, ascending. None: intervalMs throughout. */
  slowdown?: {afterMs: number; intervalMs: number}[];
}

/**
 * Details polled 4 times a second for the first 15 s, then once a second: at most 4 requests a second at any
 * moment and at most 106 over a minute's wait (60 + 45 + the one at 60 s), so that a thousand jobs waiting at
 * once ask the service ~4,000 times a second at most, ~1,000 past their first 15 s. A builder ready within
 * 15 s is seen 125 ms later on average; a long boot gains nothing from a faster pace (half a second on a
 * minute). The spec shows no rate limit; a 429 or a Retry-After slows this builder's polling for the rest of
 * the wait (readiness-poller.ts). TLS probes stay at 4 a second: they go to the builder, not to the API.
 */
export const DEFAULT_POLL_SCHEDULE: PollSchedule = {
  intervalMs: 250,
  probeIntervalMs: 250,
  maxBackoffMs: 2000,
  slowdown: [{afterMs: 15_000, intervalMs: 1000}]
};

/** The details period after `elapsed` ms of waiting. */
export function detailsPeriod(schedule: PollSchedule, elapsed: number): number {
  let period = schedule.intervalMs;
  for (const step of schedule.slowdown ?? []) if (elapsed >= step.afterMs) period = Math.max(period, step.intervalMs);
  return period;
}

/** One builder's wait, as its two parts (the details poller, then the proof) share it. */
export class ReadinessWait {
  /** Epoch ms (on `clock`) the wait began. */
  readonly since: number;

  constructor(
    readonly builderId: string,
    readonly opts: {
      clock: Clock;
      logger: Logger;
      /** Epoch ms by which the builder must be ready. */
      deadline: number;
      schedule: PollSchedule;
      progress: ReadinessProgress;
      signal?: AbortSignal;
    }
  ) {
    this.since = opts.clock.now();
  }

  get clock(): Clock {
    return this.opts.clock;
  }

  get schedule(): PollSchedule {
    return this.opts.schedule;
  }

  /**
   * The start of a round: throws on cancellation, or at the deadline with `timeout`'s error; prints the
   * progress line when one is due. Returns the time the round started.
   */
  round(timeout: (builderId: string) => BuilderTimeoutError): number {
    this.opts.signal?.throwIfAborted();
    const started = this.clock.now();
    if (this.opts.deadline - started <= 0) throw timeout(this.builderId);
    const line = this.opts.progress.due(started);
    if (line) this.opts.logger.info(line);
    return started;
  }

  /** Time left until the deadline (may be negative). */
  left(): number {
    return this.opts.deadline - this.clock.now();
  }

  /** A debug line when the builder's stage changes, not at every poll (4 a second would say the same thing). */
  observe(stage: BuilderStage, detail: string): void {
    if (this.opts.progress.update(this.builderId, stage)) {
      this.opts.logger.debug(`waitForBuilderReady: ${this.builderId}: ${detail}`);
    }
  }

  /** Waits until `wait` ms after `started`, never past the deadline. */
  async pause(started: number, wait: number): Promise<void> {
    const next = started + wait - this.clock.now();
    if (next > 0) await this.clock.sleep(Math.min(next, Math.max(0, this.left())), this.opts.signal);
  }
}

/** A timeout that says the last thing that was wrong. */
export function notReadyInTime(lastProblem: string, serviceFailure?: string, serviceSilent = false) {
  return (builderId: string): BuilderTimeoutError =>
    new BuilderTimeoutError(
      builderId,
      `Builder ${builderId} was not ready in time: ${lastProblem}`,
      serviceFailure,
      serviceFailure !== undefined && serviceSilent
    );
}
