import {abortReason} from './clock.js';

/** A signal tied to its sources and to a time limit; `dispose()` releases the timer and the listeners. */
export interface LinkedSignal {
  readonly signal: AbortSignal;
  dispose(): void;
}

export interface LinkedSignalOpts {
  /** Aborting any of these aborts the linked signal with the same reason. */
  parents?: (AbortSignal | undefined)[];
  /** Abort after this many ms (real time); none when undefined. */
  timeoutMs?: number;
  /** The reason given when the time limit ends it. */
  onTimeout?: () => Error;
}

/**
 * linkedSignal replaces AbortSignal.any/AbortSignal.timeout where a time limit must hold: on Node 20 a
 * composite signal holds its sources only weakly, so a timeout signal nobody else references can be
 * collected and never fire (a 12 s readiness deadline ended after the 15 s request timeout instead), and
 * its reason is a bare DOMException ("The operation was aborted due to timeout"). Here a real timer and
 * plain listeners hold everything until dispose(), and the reason says what ran out.
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
    const timer = setTimeout(
      () => abort(opts.onTimeout?.() ?? new DeadlineError(`the time limit of ${ms} ms ran out`)),
      ms
    );
    cleanups.push(() => clearTimeout(timer));
  }
  return {signal: controller.signal, dispose};
}

/** A time limit of ours ran out (not a cancellation by the user). */
export class DeadlineError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DeadlineError';
  }
}
