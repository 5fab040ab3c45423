import {errorMessage} from '../errors.js';
import type {ReadyBuilder} from './ready-builder.js';
import {BuilderFailedError} from './readiness-errors.js';
import type {CompleteDetails} from './readiness-poller.js';
import {describeStage} from './readiness-progress.js';
import {notReadyInTime, type ReadinessWait} from './readiness-wait.js';
import {TlsProbeError, type TlsProbe} from './tls-probe.js';

/**
 * How long readiness waits for the early proof (the Control/Info call) before it probes anyway: ample for
 * a builder that answers (a TCP, a TLS and an HTTP/2 round trip), and short of the probe's own limit, so that
 * a front that holds the connection still gets the probe's verdict in time.
 */
const PROOF_WAIT_MS = 2000;
/** Time limit of one TLS probe (less when the readiness deadline is nearer). */
const PROBE_TIMEOUT_MS = 5000;
/** TLS rejections tolerated in a row before the material is declared wrong. */
const MAX_TLS_REJECTIONS = 3;

/**
 * The proof that a builder whose details are complete is ready: the early proof when one is under way (its
 * BuildKit answered over mutual TLS: the Control/Info call), awaited PROOF_WAIT_MS and half the time left at
 * most, so a failed or late one still leaves the other half to the probe; else mutual-TLS probes on the
 * schedule's probe period until one is accepted. Three rejections in a row fail: the material is wrong.
 */
export async function proveReady(
  w: ReadinessWait,
  probe: TlsProbe,
  {ready, startedAt}: CompleteDetails,
  early?: Promise<boolean>
): Promise<ReadyBuilder> {
  const {clock} = w;
  const {endpoint, pems} = ready;
  if (early) {
    const proved = await clock
      .deadline(Math.min(PROOF_WAIT_MS, w.left() / 2), {parents: [w.opts.signal]})
      .run(() => early)
      .catch(() => false);
    w.opts.signal?.throwIfAborted();
    if (proved) {
      w.observe({kind: 'ready'}, `${describeStage({kind: 'ready'})} (its BuildKit answered over mutual TLS)`);
      return ready;
    }
    if (w.left() <= 0) {
      throw notReadyInTime(
        `the builder at ${endpoint.hostname}:${endpoint.port} had not answered over mutual TLS (its first connection, a Control/Info call) by the deadline`
      )(w.builderId);
    }
  }
  let lastProblem = '';
  /** The last probe's failure that was not merely cut short by the deadline. */
  let lastTlsProblem: string | undefined;
  let rejections = 0;
  for (let started = startedAt; ; started = w.round(notReadyInTime(lastProblem))) {
    const probeMs = Math.max(1, Math.min(PROBE_TIMEOUT_MS, w.left()));
    try {
      await probe({hostname: endpoint.hostname, port: endpoint.port, pems, timeoutMs: probeMs, signal: w.opts.signal});
      w.observe({kind: 'ready'}, describeStage({kind: 'ready'}));
      return ready;
    } catch (e) {
      w.opts.signal?.throwIfAborted();
      // A probe the deadline cut short only says that time ran out: an earlier probe's reason stays the reason.
      const cutShort =
        probeMs < PROBE_TIMEOUT_MS &&
        e instanceof TlsProbeError &&
        e.kind === 'timeout' &&
        lastTlsProblem !== undefined;
      if (!cutShort) lastTlsProblem = errorMessage(e);
      lastProblem = cutShort ? (lastTlsProblem as string) : errorMessage(e);
      w.observe({kind: 'tls', problem: e instanceof TlsProbeError ? e.kind : 'error'}, lastProblem);
      if (e instanceof TlsProbeError && e.kind === 'rejected' && ++rejections >= MAX_TLS_REJECTIONS) {
        throw new BuilderFailedError(
          w.builderId,
          `Builder ${w.builderId} at ${endpoint.hostname}:${endpoint.port} rejected the TLS material from its details: ${lastProblem}`
        );
      }
    }
    await w.pause(started, w.schedule.probeIntervalMs);
  }
}
