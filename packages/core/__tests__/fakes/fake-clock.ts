import {abortReason, timerDeadline, type Clock, type Deadline, type DeadlineOpts} from '../../src/clock.js';

/**
 * FakeClock: now() advances only through sleep(), which records the requested ms and resolves at once
 * (on a microtask). A sleep whose signal is aborted (before or by `onSleep`) rejects with the reason
 * and does not advance time. Concurrent sleepers all advance the one shared time.
 * A timer() (what a deadline waits on) does not move time: it resolves once a sleep,
 * advance() or a set of `t` moves time to or past its due time.
 */
export class FakeClock implements Clock {
  readonly sleeps: number[] = [];
  /** Called at the start of every sleep with the ms asked and the sleep's index, e.g. to abort a controller. */
  onSleep?: (ms: number, index: number) => void;
  #t: number;
  /** Each pending timer's wake-up, with its due time. */
  readonly #timers = new Map<() => void, number>();

  constructor(t = 0) {
    this.#t = t;
  }

  get t(): number {
    return this.#t;
  }

  set t(value: number) {
    this.#t = value;
    this.#fireDue();
  }

  now(): number {
    return this.#t;
  }

  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw abortReason(signal);
    this.sleeps.push(ms);
    this.onSleep?.(ms, this.sleeps.length - 1);
    if (signal?.aborted) throw abortReason(signal);
    this.t += Math.max(0, ms);
  }

  deadline(ms: number | undefined, opts?: DeadlineOpts): Deadline {
    return timerDeadline((m, s) => this.timer(m, s), ms, opts);
  }

  timer(ms: number, signal?: AbortSignal): Promise<void> {
    const due = this.#t + Math.max(0, ms);
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(abortReason(signal));
      const cancel = (): void => {
        this.#timers.delete(fire);
        reject(abortReason(signal as AbortSignal));
      };
      const fire = (): void => {
        signal?.removeEventListener('abort', cancel);
        resolve();
      };
      this.#timers.set(fire, due);
      signal?.addEventListener('abort', cancel, {once: true});
      this.#fireDue();
    });
  }

  /** Timers not yet fired nor aborted. */
  get pendingTimers(): number {
    return this.#timers.size;
  }

  /** Moves time without a sleep (e.g. to simulate a slow API call). */
  advance(ms: number): void {
    this.t += ms;
  }

  #fireDue(): void {
    for (const [fire, due] of [...this.#timers]) {
      if (due > this.#t) continue;
      this.#timers.delete(fire);
      fire();
    }
  }
}
