import type {Logger} from '../logger.js';
import type {TeardownReport} from './teardown.js';

/** The actions' retry of a failed teardown: their post step. */
export const RETRY_IN_POST = 'the post step will try again';

/** What a teardown after a failure or cancellation achieved, for the error message: never claims more. */
export function teardownOutcome(report: TeardownReport, retryHint = RETRY_IN_POST): string {
  const done = [...report.tornDown, ...report.alreadyGone].sort();
  const parts: string[] = [];
  if (done.length > 0) parts.push(`torn down: ${done.join(', ')}`);
  if (report.failed.length > 0) {
    parts.push(
      `NOT torn down, may still be billed: ${report.failed.map(f => `${f.id} (${f.error})`).join(', ')}; ${retryHint}, else tear them down in the web UI`
    );
  }
  return parts.length > 0 ? parts.join('; ') : 'nothing was assigned';
}

/** One warning per builder the report says may still be billed, naming what will retry. */
export function warnNotTornDown(logger: Logger, report: TeardownReport, retryHint = RETRY_IN_POST): void {
  const retry = `${retryHint.charAt(0).toUpperCase()}${retryHint.slice(1)}`;
  for (const f of report.failed) {
    logger.warning(`Builder ${f.id} could not be torn down and may still be billed: ${f.error}. ${retry}.`);
  }
}
