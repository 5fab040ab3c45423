import {abortReason, type Clock} from '../../src/clock.js';

/**
 * FakeClock: now() advances only through sleep(), which records the requested ms and resolves at once
 * (on a microtask). A sleep whose signal is aborted (before or by `onSleep`) rejects with the reason
 * and does not advance time. Concurrent sleepers all advance the one shared time.
 */
export class FakeClock implements Clock {
  readonly sleeps: number[] = [];
  /** Called at the start of every sleep with the ms asked and the sleep's index, e.g. to abort a controller. */
  onSleep?: (ms: number, index: number) => void;

  constructor(public t = 0) {}

  now(): number {
    return this.t;
  }

  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw abortReason(signal);
    this.sleeps.push(ms);
    this.onSleep?.(ms, this.sleeps.length - 1);
    if (signal?.aborted) throw abortReason(signal);
    this.t += Math.max(0, ms);
  }

  /** Moves time without a sleep (e.g. to simulate a slow API call). */
  advance(ms: number): void {
    this.t += ms;
  }
}
