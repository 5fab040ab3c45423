import {DEFAULT_DETAILS_404_GRACE_MS} from '../inputs.js';
import type {Clock} from '../clock.js';
import type {Logger} from '../logger.js';
import type {BuilderApi} from '../api/builder-api.js';
import type {ReadyBuilder} from './ready-builder.js';
import {DetailsPoller} from './readiness-poller.js';
import {ReadinessProgress} from './readiness-progress.js';
import {proveReady} from './readiness-proof.js';
import {DEFAULT_POLL_SCHEDULE, ReadinessWait, type PollSchedule} from './readiness-wait.js';
import type {TlsProbe} from './tls-probe.js';

export type {ReadyBuilder} from './ready-builder.js';
export {BuilderFailedError, BuilderTimeoutError, explainTimeout} from './readiness-errors.js';
export {DEFAULT_POLL_SCHEDULE, detailsPeriod, type PollSchedule} from './readiness-wait.js';

export interface ReadinessOpts {
  api: BuilderApi;
  clock: Clock;
  logger: Logger;
  probe: TlsProbe;
  /** Epoch ms by which the builder must be ready. */
  deadline: number;
  schedule?: PollSchedule;
  /** How long after the assignment a details 404 means "not visible yet" (default DEFAULT_DETAILS_404_GRACE_MS). */
  details404GraceMs?: number;
  signal?: AbortSignal;
  /**
   * Shared by the waits of all builders of one provision, so that they print one progress line between them
   * every ~10 s. Default: one for this builder alone (its own line).
   */
  progress?: ReadinessProgress;
  /**
   * Told once the details are complete (host and TLS material, which are not read again), before the TLS
   * probe proves the builder ready: what needs no answer from the builder (certificates, the buildx node)
   * can start then. It may return a proof under way: true when the builder's HTTP/2 server has answered over
   * a mutual-TLS connection made with these details (what the probe proves; the Control/Info call does), and
   * the first probe is then not made; false, or no answer in time, and readiness probes as it would have
   * (readiness-proof.ts).
   */
  onComplete?: (builder: ReadyBuilder) => Promise<boolean> | void;
}

/**
 * Waits until one builder is ready, in two parts: the details poller (readiness-poller.ts) until its details
 * carry host, ca, client_cert and client_key (and `status`, when present, is `ready`), then the proof
 * (readiness-proof.ts): a mutual-TLS connection to the host with them succeeds. `failed` fails at once; the
 * deadline fails with the last thing that was wrong.
 */
export async function waitForBuilderReady(builderId: string, opts: ReadinessOpts): Promise<ReadyBuilder> {
  const since = opts.clock.now();
  const wait = new ReadinessWait(builderId, {
    clock: opts.clock,
    logger: opts.logger,
    deadline: opts.deadline,
    schedule: opts.schedule ?? DEFAULT_POLL_SCHEDULE,
    progress: opts.progress ?? new ReadinessProgress({ids: [builderId], since, deadline: opts.deadline}),
    signal: opts.signal
  });
  const poller = new DetailsPoller(wait, opts.api, opts.details404GraceMs ?? DEFAULT_DETAILS_404_GRACE_MS);
  const complete = await poller.complete();
  const early = opts.onComplete?.(complete.ready) ?? undefined;
  return proveReady(wait, opts.probe, complete, early);
}
