import {abortReason, type Clock, clockTimer, systemClock} from './clock.js';

/** A signal tied to its sources and to a time limit; `dispose()` releases the timer and the listeners. */
export interface LinkedSignal {
  readonly signal: AbortSignal;
  dispose(): void;
}

export interface LinkedSignalOpts {
  /** Aborting any of these aborts the linked signal with the same reason. */
  parents?: (AbortSignal | undefined)[];
  /** Abort after this many ms of `clock`; none when undefined. */
  timeoutMs?: number;
  /** The reason given when the time limit ends it. */
  onTimeout?: () => Error;
  /** What measures the time limit (its `timer`, else a real timer). Default: the system clock. */
  clock?: Clock;
}

/**
 * linkedSignal is the one time limit: a signal that aborts when a parent does or when `timeoutMs` of the
 * clock have passed, with a reason that says what ran out. It replaces AbortSignal.any/AbortSignal.timeout:
 * on Node 20 a composite signal holds its sources only weakly, so a timeout signal nobody else references can
 * be collected and never fire, and its reason is a bare DOMException. Here plain listeners and the clock's
 * timer hold everything until dispose().
 */
export function linkedSignal(opts: LinkedSignalOpts): LinkedSignal {
  const controller = new AbortController();
  const parents = (opts.parents ?? []).filter((p): p is AbortSignal => p !== undefined);
  const cleanups: (() => void)[] = [];
  const dispose = (): void => {
    for (const c of cleanups.splice(0)) c();
  };
  const abort = (reason: Error): void => {
    if (controller.signal.aborted) return;
    controller.abort(reason);
    dispose();
  };
  for (const parent of parents) {
    if (parent.aborted) {
      abort(abortReason(parent));
      return {signal: controller.signal, dispose};
    }
    const onAbort = (): void => abort(abortReason(parent));
    parent.addEventListener('abort', onAbort, {once: true});
    cleanups.push(() => parent.removeEventListener('abort', onAbort));
  }
  if (opts.timeoutMs !== undefined) {
    const ms = Math.max(0, Math.ceil(opts.timeoutMs));
    const stop = new AbortController();
    clockTimer(opts.clock ?? systemClock)(ms, stop.signal).then(
      () => abort(opts.onTimeout?.() ?? new DeadlineError(`the time limit of ${ms} ms ran out`)),
      () => undefined
    );
    cleanups.push(() => stop.abort());
  }
  return {signal: controller.signal, dispose};
}

/**
 * `p`'s outcome, or the signal's reason as soon as it aborts, even when the work behind `p` ignores the
 * signal (p is then left to settle unobserved).
 */
export function settleOrAbort<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortReason(signal));
    p.then(
      v => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      }
    );
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, {once: true});
  });
}

export interface WithDeadlineOpts extends Omit<LinkedSignalOpts, 'timeoutMs'> {
  timeoutMs: number;
}

/**
 * Runs `call` with a linked signal (parents + time limit on the clock) and settles when the call does or the
 * moment that signal aborts, with its reason, even if the call ignores the signal. Timer and listeners are
 * released either way.
 */
export async function withDeadline<T>(opts: WithDeadlineOpts, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const limit = linkedSignal(opts);
  try {
    return await settleOrAbort((async () => call(limit.signal))(), limit.signal);
  } finally {
    limit.dispose();
  }
}

/** A time limit of ours ran out (not a cancellation by the user). */
export class DeadlineError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DeadlineError';
  }
}
