import type {Clock, Deadline} from '../clock.js';

/** A watch on a transfer: `kick()` on every sign of life; `stop()` once it is over. */
export interface IdleWatch {
  kick(): void;
  stop(): void;
}

/**
 * Calls `onIdle` once `ms` of `clock` pass without a `kick()`. One deadline at a time: when it ends early
 * (there was a kick since), it is armed again for what is left, so a chunk costs no timer.
 */
export function idleWatch(clock: Clock, ms: number, onIdle: () => void): IdleWatch {
  let last = clock.now();
  let current: Deadline | undefined;
  const arm = (wait: number): void => {
    const limit = clock.deadline(wait);
    current = limit;
    limit.signal.addEventListener(
      'abort',
      () => {
        const quiet = clock.now() - last;
        if (quiet >= ms) onIdle();
        else arm(Math.max(1, ms - quiet));
      },
      {once: true}
    );
  };
  arm(ms);
  return {
    kick: () => {
      last = clock.now();
    },
    stop: () => current?.dispose()
  };
}
