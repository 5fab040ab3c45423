/** A scheduled callback; `cancel` is idempotent. */
export interface Timer {
  cancel(): void;
}

/**
 * EmulatorClock is the emulator's time source and timer scheduler: builder readiness, failures, idle
 * time-outs, response latency and fault delays all go through it, so tests can drive them with a ManualClock.
 */
export interface EmulatorClock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Runs `fn` once after `ms` milliseconds. */
  setTimer(fn: () => void, ms: number): Timer;
}

/** The real clock: Date.now and setTimeout. */
export const systemClock: EmulatorClock = {
  now: () => Date.now(),
  setTimer(fn, ms) {
    const handle = setTimeout(fn, Math.max(0, ms));
    return {cancel: () => clearTimeout(handle)};
  }
};

/** Resolves after `ms` on `clock`; resolves at once (same tick) when `ms` is not positive. */
export function sleep(clock: EmulatorClock, ms: number, timers?: Set<Timer>): Promise<void> {
  if (!(ms > 0)) return Promise.resolve();
  return new Promise(resolve => {
    const timer = clock.setTimer(() => {
      timers?.delete(timer);
      resolve();
    }, ms);
    timers?.add(timer);
  });
}

export interface ManualClockOpts {
  /** Start time in epoch milliseconds; defaults to Date.now(). */
  now?: number;
}

interface PendingTimer {
  at: number;
  seq: number;
  fn: () => void;
}

/** ManualClock only moves when told to; `advance` fires due timers in time order. For tests and benchmarks. */
export class ManualClock implements EmulatorClock {
  #now: number;
  #seq = 0;
  readonly #pending = new Set<PendingTimer>();

  constructor(opts: ManualClockOpts = {}) {
    this.#now = opts.now ?? Date.now();
  }

  now(): number {
    return this.#now;
  }

  setTimer(fn: () => void, ms: number): Timer {
    const entry: PendingTimer = {at: this.#now + Math.max(0, ms), seq: this.#seq++, fn};
    this.#pending.add(entry);
    return {cancel: () => void this.#pending.delete(entry)};
  }

  /** Number of timers not yet fired or cancelled. */
  pendingTimers(): number {
    return this.#pending.size;
  }

  /** Moves time forward by `ms`, running every timer that falls due (including ones scheduled meanwhile). */
  advance(ms: number): void {
    const target = this.#now + Math.max(0, ms);
    for (;;) {
      let next: PendingTimer | undefined;
      for (const t of this.#pending) {
        if (t.at <= target && (!next || t.at < next.at || (t.at === next.at && t.seq < next.seq))) next = t;
      }
      if (!next) break;
      this.#pending.delete(next);
      this.#now = Math.max(this.#now, next.at);
      next.fn();
    }
    this.#now = target;
  }
}
