import {setImmediate as nextMacrotask} from 'node:timers/promises';
import {abortReason, timerDeadline, type Clock, type Deadline, type DeadlineOpts} from '../../src/clock.js';

interface Sleeper {
  due: number;
  seq: number;
  /** A timer() (what a deadline waits on), not a sleep: neither recorded in `sleeps` nor counted in `pending`. */
  timer: boolean;
  wake(): void;
}

/**
 * ManualClock: time moves only when the test calls advance(). Unlike FakeClock (whose sleeps return at
 * once), a sleep here waits until the test moves time past it, so code that loops on the clock runs beside
 * the test. advance() wakes sleepers one at a time in due order (ties in the order they slept), and after
 * each lets every promise chain the wake-up started run until it waits again (one macrotask turn: works
 * with fakes that answer through promises, not with real I/O). A timer() (what a deadline waits on) waits
 * the same way, but is not recorded in `sleeps` nor counted in `pending`.
 */
export class ManualClock implements Clock {
  /** The ms asked by every sleep, in call order. */
  readonly sleeps: number[] = [];
  #t: number;
  #seq = 0;
  #sleepers: Sleeper[] = [];

  constructor(start = 0) {
    this.#t = start;
  }

  now(): number {
    return this.#t;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    this.sleeps.push(ms);
    return this.#wait(ms, false, signal);
  }

  deadline(ms: number | undefined, opts?: DeadlineOpts): Deadline {
    return timerDeadline((m, s) => this.timer(m, s), ms, opts);
  }

  timer(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    return this.#wait(ms, true, signal);
  }

  #wait(ms: number, timer: boolean, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        this.#sleepers = this.#sleepers.filter(s => s !== sleeper);
        reject(abortReason(signal as AbortSignal));
      };
      const sleeper: Sleeper = {
        due: this.#t + Math.max(0, ms),
        seq: this.#seq++,
        timer,
        wake: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        }
      };
      this.#sleepers.push(sleeper);
      signal?.addEventListener('abort', onAbort, {once: true});
    });
  }

  /** Sleeps not yet woken nor aborted. */
  get pending(): number {
    return this.#sleepers.filter(s => !s.timer).length;
  }

  /** Timers not yet fired nor aborted. */
  get pendingTimers(): number {
    return this.#sleepers.filter(s => s.timer).length;
  }

  /** Moves time forward by ms, waking every sleeper due on the way (see the class comment). */
  async advance(ms: number): Promise<void> {
    await this.advanceTo(this.#t + ms);
  }

  async advanceTo(target: number): Promise<void> {
    await settle();
    for (let woken = 0; ; woken++) {
      if (woken > 100_000) throw new Error('ManualClock: over 100000 wake-ups in one advance; a 0 ms sleep loop?');
      const next = this.#sleepers.filter(s => s.due <= target).sort((a, b) => a.due - b.due || a.seq - b.seq)[0];
      if (!next) break;
      this.#t = Math.max(this.#t, next.due);
      this.#sleepers = this.#sleepers.filter(s => s !== next);
      next.wake();
      await settle();
    }
    this.#t = Math.max(this.#t, target);
    await settle();
  }
}

/** Lets every pending promise chain run: microtasks all drain before the next macrotask. */
async function settle(): Promise<void> {
  await nextMacrotask();
}
