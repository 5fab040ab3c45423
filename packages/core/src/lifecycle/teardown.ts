import {errorMessage} from '../errors.js';
import {type Clock, systemClock} from '../clock.js';
import type {Logger} from '../logger.js';
import {nullLogger} from '../logger.js';
import type {BuilderApi} from './builder-api.js';

export interface TeardownReport {
  /** Torn down by this call. */
  tornDown: string[];
  /** The service answered 404: already gone. */
  alreadyGone: string[];
  /** Still possibly billed. */
  failed: {id: string; error: string}[];
}

export interface TeardownOpts {
  logger?: Logger;
  clock?: Clock;
  /** Rounds per builder; each round is one client call, which itself retries transient failures. */
  attempts?: number;
  /** Pause between rounds. */
  pauseMs?: number;
  /** Hard limit for the whole teardown; what is not done by then is reported as failed. */
  timeoutMs?: number;
}

/**
 * Tears every builder down, concurrently, each retried; 404 counts as already gone. Never throws:
 * the report says what may still be billed. Safe to call again with the same ids.
 */
export async function teardownBuilders(
  api: BuilderApi,
  ids: string[],
  opts: TeardownOpts = {}
): Promise<TeardownReport> {
  const logger = opts.logger ?? nullLogger;
  const clock = opts.clock ?? systemClock;
  const attempts = opts.attempts ?? 3;
  const pauseMs = opts.pauseMs ?? 500;
  const signal = AbortSignal.timeout(opts.timeoutMs ?? 30000);
  const report: TeardownReport = {tornDown: [], alreadyGone: [], failed: []};

  await Promise.all(
    [...new Set(ids)].map(async id => {
      let lastError = '';
      for (let round = 1; round <= attempts && !signal.aborted; round++) {
        try {
          const res = await api.teardownBuilder(id, {signal});
          if (res.alreadyGone) {
            report.alreadyGone.push(id);
            logger.info(`Builder ${id} was already gone`);
          } else {
            report.tornDown.push(id);
            logger.info(`Builder ${id} torn down`);
          }
          return;
        } catch (e) {
          lastError = errorMessage(e);
          logger.debug(`teardownBuilders: ${id} round ${round}: ${lastError}`);
          if (round < attempts) await clock.sleep(pauseMs, signal).catch(() => undefined);
        }
      }
      if (signal.aborted && lastError === '') lastError = 'no time left to tear it down';
      report.failed.push({id, error: lastError});
    })
  );
  return report;
}
