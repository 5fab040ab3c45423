import {clockTimer, type Clock} from '../clock.js';

/** A watch on a transfer: `kick()` on every sign of life; `stop()` once it is over. */
export interface IdleWatch {
  kick(): void;
  stop(): void;
}

/**
 * Calls `onIdle` once `ms` of `clock` pass without a `kick()`. One timer at a time, on the clock's `timer`: when
 * it ends early (there was a kick since), it is armed again for what is left, so a chunk costs no timer.
 */
export function idleWatch(clock: Clock, ms: number, onIdle: () => void): IdleWatch {
  const timer = clockTimer(clock);
  const stopped = new AbortController();
  let last = clock.now();
  const arm = (wait: number): void => {
    timer(wait, stopped.signal).then(
      () => {
        const quiet = clock.now() - last;
        if (quiet >= ms) onIdle();
        else arm(Math.max(1, ms - quiet));
      },
      () => undefined
    );
  };
  arm(ms);
  return {
    kick: () => {
      last = clock.now();
    },
    stop: () => stopped.abort()
  };
}
