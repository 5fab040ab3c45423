/** Clock is the time source of everything that waits, polls or sets a time limit; tests inject a fake one. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /**
   * Like sleep, for a time limit: resolves once `ms` have passed on this clock. It never moves the clock
   * itself, so a test clock whose sleeps move time (FakeClock) ends it only when something else moves time
   * past it. Absent: a real timer (systemClock's sleep).
   */
  timer?(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(abortReason(signal));
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(abortReason(signal as AbortSignal));
      };
      const timer = setTimeout(
        () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        Math.max(0, ms)
      );
      signal?.addEventListener('abort', onAbort, {once: true});
    })
};

/** The reason an aborted signal carries, always as an Error. */
export function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error(String(reason ?? 'aborted'));
}

/** What a time limit on `clock` waits on: its timer, else a real one. */
export function clockTimer(clock: Clock): (ms: number, signal?: AbortSignal) => Promise<void> {
  const timer = clock.timer;
  return timer ? (ms, signal) => timer.call(clock, ms, signal) : systemClock.sleep;
}
