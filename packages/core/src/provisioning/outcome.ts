import {CancelledError} from '../lifecycle/cancelled-error.js';
import {BuilderTimeoutError} from '../lifecycle/readiness.js';
import type {RunRecord} from '../report/run-record.js';

/**
 * The one reading of how a run that threw ended, for the run record: cancelled when the step's signal was
 * aborted or the error is a cancellation; a timeout when a builder was not ready in time (also when that
 * error was explained or wrapped on the way up, as StepRun.provision and the build attempts do); a
 * failure otherwise.
 */
export function failedOutcome(error: unknown, signal?: AbortSignal): Exclude<RunRecord['outcome'], 'success'> {
  if (signal?.aborted || error instanceof CancelledError) return 'cancelled';
  for (let cur = error, depth = 0; cur instanceof Error && depth < 5; cur = cur.cause, depth++) {
    if (cur instanceof BuilderTimeoutError) return 'timeout';
  }
  return 'failure';
}
