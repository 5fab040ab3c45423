import {DeadlineError} from './deadline.js';

/** Clock is the time source of everything that waits, polls or sets a time limit; tests inject a fake one. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /**
   * The one time limit: a signal that aborts when a parent does (with its reason) or once `ms` have passed on
   * this clock (with `reason()`, default a DeadlineError); undefined `ms`: parents only. A test clock ends it
   * when its time moves past `ms`, without moving time itself.
   */
  deadline(ms: number | undefined, opts?: DeadlineOpts): Deadline;
}

export interface DeadlineOpts {
  /** Aborting any of these aborts the deadline's signal with the same reason. */
  parents?: (AbortSignal | undefined)[];
  /** The reason given when the time runs out. */
  reason?: () => Error;
}

/** A signal tied to its parents and to a time limit; `dispose()` releases the timer and the listeners. */
export interface Deadline {
  readonly signal: AbortSignal;
  /** True once the time limit, not a parent, aborted the signal. */
  readonly expired: boolean;
  /**
   * `call(signal)`'s outcome, or the signal's reason the moment it aborts, even when the call ignores the
   * signal (its promise then settles unobserved); disposes the deadline either way.
   */
  run<T>(call: (signal: AbortSignal) => Promise<T>): Promise<T>;
  dispose(): void;
}

/** What a clock's time limit waits on: resolves once `ms` have passed, rejects when `signal` aborts first. */
export type ClockTimer = (ms: number, signal: AbortSignal) => Promise<void>;

/**
 * A Deadline whose time limit waits on `timer` (how every clock implements `deadline`). Plain listeners, not
 * AbortSignal.any/timeout: on Node 20 a composite signal holds its sources only weakly, so a timeout signal
 * nobody else references can be collected and never fire, and its reason is a bare DOMException.
 */
export function timerDeadline(timer: ClockTimer, ms: number | undefined, opts: DeadlineOpts = {}): Deadline {
  const controller = new AbortController();
  const signal = controller.signal;
  const cleanups: (() => void)[] = [];
  const dispose = (): void => {
    for (const c of cleanups.splice(0)) c();
  };
  let expired = false;
  const abort = (reason: Error, timedOut = false): void => {
    if (signal.aborted) return;
    expired = timedOut;
    controller.abort(reason);
    dispose();
  };
  const run = <T>(call: (s: AbortSignal) => Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const onAbort = (): void => reject(abortReason(signal));
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, {once: true});
      (async () => call(signal))().then(resolve, reject);
    }).finally(dispose);
  const deadline: Deadline = {
    signal,
    get expired() {
      return expired;
    },
    run,
    dispose
  };
  for (const parent of opts.parents ?? []) {
    if (!parent) continue;
    if (parent.aborted) {
      abort(abortReason(parent));
      return deadline;
    }
    const onAbort = (): void => abort(abortReason(parent));
    parent.addEventListener('abort', onAbort, {once: true});
    cleanups.push(() => parent.removeEventListener('abort', onAbort));
  }
  if (ms !== undefined) {
    const limit = Math.max(0, Math.ceil(ms));
    const stop = new AbortController();
    timer(limit, stop.signal).then(
      () => abort(opts.reason?.() ?? new DeadlineError(`the time limit of ${limit} ms ran out`), true),
      () => undefined
    );
    cleanups.push(() => stop.abort());
  }
  return deadline;
}

function systemSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
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
  });
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: systemSleep,
  deadline: (ms, opts) => timerDeadline(systemSleep, ms, opts)
};

/** The reason an aborted signal carries, always as an Error. */
export function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error(String(reason ?? 'aborted'));
}
