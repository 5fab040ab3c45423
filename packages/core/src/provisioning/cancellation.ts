import {abortReason} from '../clock.js';
import {CancelledError} from '../lifecycle/cancelled-error.js';

/** A CancelledError naming what stopped the step (e.g. "Cancelled by SIGINT") and where. */
export function cancellation(signal: AbortSignal | undefined, phase: string): CancelledError {
  const why = signal?.aborted ? abortReason(signal).message : 'Cancelled';
  return new CancelledError(`${why} ${phase}`);
}
