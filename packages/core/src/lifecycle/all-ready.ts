import type {Clock} from '../clock.js';
import type {Logger} from '../logger.js';
import type {BuilderApi} from '../api/builder-api.js';
import {CancelledError} from './cancelled-error.js';
import {waitForBuilderReady, type PollSchedule, type ReadyBuilder} from './readiness.js';
import {ReadinessProgress} from './readiness-progress.js';
import type {TlsProbe} from './tls-probe.js';

export interface AllReadyOpts {
  api: BuilderApi;
  clock: Clock;
  logger: Logger;
  probe: TlsProbe;
  /** Epoch ms by which every builder must be ready. */
  deadline: number;
  /** Epoch ms the timeout began (before the assignment), for the progress lines. */
  timeoutStartedAt: number;
  /** Cancellation: the wait rejects with a CancelledError. */
  signal?: AbortSignal;
  /** Aborting it stops every wait with its reason (e.g. a node that could not be set up). */
  stop?: AbortSignal;
  schedule?: PollSchedule;
  details404GraceMs?: number;
  /**
   * Told of each builder once its details are complete, before it is proven ready; may return a proof that
   * spares the first TLS probe (see ReadinessOpts).
   */
  onComplete?: (builder: ReadyBuilder, index: number) => Promise<boolean> | void;
  /** Told of each builder the moment it is ready, with its index in `ids`. */
  onReady?: (builder: ReadyBuilder, index: number) => void;
}

/**
 * Waits until every builder is ready, all at once; the first failure stops the others and is the error.
 * Resolves the ready builders in the order of `ids`.
 */
export async function waitForAllReady(ids: string[], opts: AllReadyOpts): Promise<ReadyBuilder[]> {
  const {clock, logger} = opts;
  const stopOthers = new AbortController();
  // One tracker for all builders: one progress line every 10 s, not one per builder.
  const progress = new ReadinessProgress({
    ids,
    since: clock.now(),
    deadline: opts.deadline,
    timeoutStartedAt: opts.timeoutStartedAt
  });
  const signal = AbortSignal.any(
    [opts.signal, opts.stop, stopOthers.signal].filter((s): s is AbortSignal => s !== undefined)
  );
  try {
    return await Promise.all(
      ids.map(async (id, index) => {
        try {
          const b = await waitForBuilderReady(id, {
            api: opts.api,
            clock,
            logger,
            probe: opts.probe,
            deadline: opts.deadline,
            progress,
            signal,
            schedule: opts.schedule,
            details404GraceMs: opts.details404GraceMs,
            onComplete: b => opts.onComplete?.(b, index)
          });
          const arch = b.arch ? ` (${b.arch})` : '';
          const port = b.endpoint.defaultedPort ? ' (port not given; assumed)' : '';
          logger.info(`Builder ${id} ready at ${b.endpoint.url}${arch}${port}`);
          opts.onReady?.(b, index);
          return b;
        } catch (e) {
          if (!stopOthers.signal.aborted) stopOthers.abort(e);
          throw e;
        }
      })
    );
  } catch (e) {
    if (opts.signal?.aborted) throw new CancelledError('while waiting for builders to be ready');
    // Promise.all rejects with the first failure, which is the one that aborted the others.
    throw e;
  }
}
