import {ApiError, errorMessage} from '../errors.js';
import {DEFAULT_DETAILS_404_GRACE_MS} from '../inputs.js';
import type {BuilderDetails} from '../api/types.js';
import type {Clock} from '../clock.js';
import {DeadlineError} from '../deadline.js';
import type {Logger} from '../logger.js';
import type {BuilderPems} from '../certs/cert-store.js';
import {platformsFromArch} from '../buildx/platforms.js';
import {parseBuilderEndpoint, type BuilderEndpoint} from './builder-endpoint.js';
import type {BuilderApi} from '../api/builder-api.js';
import {ReadinessProgress, describeStage, type BuilderStage} from './readiness-progress.js';
import {registerSecret} from './secrets.js';
import {TlsProbeError, type TlsProbe} from './tls-probe.js';

/** A builder that answered its details with complete TLS material and accepted our mutual-TLS handshake. */
export interface ReadyBuilder {
  id: string;
  endpoint: BuilderEndpoint;
  /** `arch` from the details when the service sent it. */
  arch?: string;
  /** Platforms from `arch` (`linux/<arch>`), [] when unknown. */
  platforms: string[];
  pems: BuilderPems;
  /** Details requests sent for this builder. */
  detailsRequests: number;
  /** The details answer that made it ready (in memory only: it holds the client key). */
  details?: BuilderDetails;
}

/** How often readiness polls. Start-to-start, so API latency does not stretch the period. */
export interface PollSchedule {
  /** Period between details requests while the builder is pending (until the first slowdown). */
  intervalMs: number;
  /** Period between TLS probes once the details are complete. */
  probeIntervalMs: number;
  /** Longest wait after consecutive errors (backoff doubles from intervalMs up to this). */
  maxBackoffMs: number;
  /** Longer details periods once the wait has lasted `afterMs`, ascending. None: intervalMs throughout. */
  slowdown?: {afterMs: number; intervalMs: number}[];
}

/**
 * How long readiness waits for onComplete's proof (the Control/Info call) before it probes anyway: ample for
 * a builder that answers (a TCP, a TLS and an HTTP/2 round trip), and short of the probe's own limit, so that
 * a front that holds the connection still gets the probe's verdict in time.
 */
const PROOF_WAIT_MS = 2000;
/** Time limit of one TLS probe (less when the readiness deadline is nearer). */
const PROBE_TIMEOUT_MS = 5000;

/**
 * Details polled 4 times a second for the first 15 s, then once a second: at most 4 requests a second at any
 * moment and at most 106 over a minute's wait (60 + 45 + the one at 60 s), so that a thousand jobs waiting at
 * once ask the service ~4,000 times a second at most, ~1,000 past their first 15 s. A builder ready within
 * 15 s is seen 125 ms later on average; a long boot gains nothing from a faster pace (half a second on a
 * minute). The spec shows no rate limit; a 429 or a Retry-After slows this builder's polling for the rest of
 * the wait (see `throttled`). TLS probes stay at 4 a second: they go to the builder, not to the API.
 */
export const DEFAULT_POLL_SCHEDULE: PollSchedule = {
  intervalMs: 250,
  probeIntervalMs: 250,
  maxBackoffMs: 2000,
  slowdown: [{afterMs: 15_000, intervalMs: 1000}]
};

/** The details period after `elapsed` ms of waiting. */
export function detailsPeriod(schedule: PollSchedule, elapsed: number): number {
  let period = schedule.intervalMs;
  for (const step of schedule.slowdown ?? []) if (elapsed >= step.afterMs) period = Math.max(period, step.intervalMs);
  return period;
}

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
   * the first probe is then not made; false, or no answer within PROOF_WAIT_MS (2 s), and readiness probes
   * as it would have.
   */
  onComplete?: (builder: ReadyBuilder) => Promise<boolean> | void;
}

/** The builder reported `failed` (or was terminated) while we waited. */
export class BuilderFailedError extends Error {
  constructor(
    readonly builderId: string,
    message: string
  ) {
    super(message);
    this.name = 'BuilderFailedError';
  }
}

/**
 * The message for a timed-out provision: "raise the timeout" when the builder was still starting; when the
 * service kept failing until the deadline, a longer timeout would not help, and the message says so; when
 * it stopped answering, we cannot tell a slow service from a down one, so the advice names both.
 */
export function explainTimeout(e: unknown, timeoutMs: number, timeoutInput: string): unknown {
  if (!(e instanceof BuilderTimeoutError)) return e;
  // A CLI flag (`--timeout`) is named as typed; an action input as `the "timeout" input`.
  const setting = timeoutInput.startsWith('-') ? timeoutInput : `the "${timeoutInput}" input`;
  const advice =
    e.serviceFailure === undefined
      ? `raise ${setting} if the profile needs longer to start`
      : e.serviceSilent
        ? `the service did not answer its last request, so raise ${setting} only if the service is slow rather than down, and check the service's status if it persists`
        : `the service kept failing until then, so a longer "${timeoutInput}" would not help: try again later, and check the service's status if it persists`;
  return new Error(`${e.message}. Timed out after ${timeoutMs} ms: ${advice}`, {cause: e});
}

/** The builder was not ready by the deadline. */
export class BuilderTimeoutError extends Error {
  constructor(
    readonly builderId: string,
    message: string,
    /**
     * Set when what kept the builder from being ready at the deadline was the service failing (5xx, no
     * answer, refused connections) rather than the builder still starting: a longer timeout would not help.
     */
    readonly serviceFailure?: string,
    /** With serviceFailure: the last request got no answer at all (slow or down: we cannot tell which). */
    readonly serviceSilent = false
  ) {
    super(message);
    this.name = 'BuilderTimeoutError';
  }
}

const PEM_FIELDS = ['ca', 'client_cert', 'client_key'] as const;
const FATAL_STATUSES = new Set([401, 403]);
/** TLS rejections tolerated in a row before the material is declared wrong. */
const MAX_TLS_REJECTIONS = 3;
/**
 * How long answers in a row may say status "ready" without the TLS material before the details are declared
 * broken (a service may write the status a moment before the material), and the fewest such answers.
 */
const READY_BUT_INCOMPLETE_MS = 2000;
const MIN_READY_BUT_INCOMPLETE = 3;
/** Most a 429 or Retry-After may stretch one builder's details period (a longer Retry-After is still honoured once). */
const MAX_THROTTLED_PERIOD_MS = 5000;

/**
 * Waits until one builder is ready: its details carry host, ca, client_cert and client_key (and
 * `status`, when present, is `ready`), and a mutual-TLS handshake to the host with them succeeds.
 * `failed` fails at once; the deadline fails with the last thing that was wrong.
 */
export async function waitForBuilderReady(builderId: string, opts: ReadinessOpts): Promise<ReadyBuilder> {
  const schedule = opts.schedule ?? DEFAULT_POLL_SCHEDULE;
  const {clock, logger} = opts;
  let requests = 0;
  let lastProblem = 'no details received yet';
  /** The last TLS probe's failure that was not merely cut short by the deadline. */
  let lastTlsProblem: string | undefined;
  let serviceFailure: string | undefined;
  let serviceSilent = false;
  let answered = false;
  const since = clock.now();
  const graceMs = opts.details404GraceMs ?? DEFAULT_DETAILS_404_GRACE_MS;
  const progress = opts.progress ?? new ReadinessProgress({ids: [builderId], since, deadline: opts.deadline});
  // A debug line when the builder's stage changes, not at every poll (10 a second would say the same thing).
  const observe = (stage: BuilderStage, detail: string): void => {
    if (progress.update(builderId, stage)) logger.debug(`waitForBuilderReady: ${builderId}: ${detail}`);
  };
  let consecutiveErrors = 0;
  let tlsRejections = 0;
  let readyButIncomplete = 0;
  let readyButIncompleteSince = 0;
  /** The details period a 429 or Retry-After imposed: kept for the rest of this wait (0: none). */
  let throttled = 0;
  /** Made once, when the details are complete: they are not asked again. */
  let complete: ReadyBuilder | undefined;
  /** What onComplete returned: awaited once, instead of the first probe. */
  let proof: Promise<boolean> | undefined;

  for (;;) {
    opts.signal?.throwIfAborted();
    const started = clock.now();
    const remaining = opts.deadline - started;
    if (remaining <= 0) {
      throw new BuilderTimeoutError(
        builderId,
        `Builder ${builderId} was not ready in time: ${lastProblem}`,
        serviceFailure,
        serviceFailure !== undefined && serviceSilent
      );
    }
    const line = progress.due(started);
    if (line) logger.info(line);
    const period = Math.max(detailsPeriod(schedule, started - since), throttled);
    let wait = period;
    if (!complete) {
      // Each request ends at the deadline (a hanging request must not carry us past it), with a reason that says so.
      const limit = clock.deadline(remaining, {
        parents: [opts.signal],
        reason: () => new DeadlineError(`the details request got no answer before the readiness deadline`)
      });
      try {
        requests++;
        const details = await opts.api.getBuilderDetails(builderId, {signal: limit.signal, retry: false});
        serviceFailure = undefined;
        answered = true;
        consecutiveErrors = 0;
        const verdict = examine(builderId, details, logger);
        if (verdict.kind === 'complete') {
          complete = readyBuilder(builderId, {details, endpoint: verdict.endpoint}, requests);
          proof = opts.onComplete?.(complete) ?? undefined;
        } else {
          lastProblem = verdict.why;
          observe(verdict.stage, lastProblem);
        }
        readyButIncomplete = verdict.kind === 'pending' && verdict.saysReady ? readyButIncomplete + 1 : 0;
        if (readyButIncomplete === 1) readyButIncompleteSince = started;
        if (
          readyButIncomplete >= MIN_READY_BUT_INCOMPLETE &&
          clock.now() - readyButIncompleteSince >= READY_BUT_INCOMPLETE_MS
        ) {
          throw new BuilderFailedError(
            builderId,
            `Builder ${builderId} reports status "ready" but its ${lastProblem.replace(/ \(status "ready"\)$/, '')}: the service sent incomplete connection details`
          );
        }
      } catch (e) {
        if (e instanceof BuilderFailedError) throw e;
        opts.signal?.throwIfAborted();
        if (e instanceof ApiError && e.status !== undefined && FATAL_STATUSES.has(e.status)) throw e;
        // Any HTTP answer, an error status too, is what the service said: a deadline that cuts a later request
        // in flight does not replace it.
        if (e instanceof ApiError && e.status !== undefined) answered = true;
        if (e instanceof ApiError && e.status === 404) {
          if (clock.now() - since >= graceMs) throw e;
          // Not visible yet is like pending, not like a failure: polled at the normal pace, no backoff.
          lastProblem = `the service does not show builder ${builderId} yet (details answered HTTP 404 within ${graceMs} ms of the assignment)`;
          serviceFailure = undefined;
          observe({kind: 'not-visible'}, lastProblem);
        } else {
          if (!(e instanceof DeadlineError && answered)) {
            // (When the deadline cut a request in flight, what the service last said is still the reason.)
            lastProblem = errorMessage(e);
            serviceFailure = lastProblem;
            serviceSilent = e instanceof DeadlineError || (e instanceof ApiError && e.code === 'ETIMEDOUT');
          }
          consecutiveErrors++;
          wait = Math.min(schedule.maxBackoffMs, period * 2 ** consecutiveErrors);
          // Asked to slow down: this builder's period doubles for the rest of the wait (up to 5 s), and a
          // Retry-After is waited out once, however long (the deadline still cuts it).
          const asked = e instanceof ApiError ? e.retryAfterMs : undefined;
          if (e instanceof ApiError && (e.status === 429 || asked !== undefined)) {
            throttled = Math.min(MAX_THROTTLED_PERIOD_MS, Math.max(period * 2, throttled * 2));
            wait = Math.max(wait, throttled, asked ?? 0);
          }
          observe({kind: 'service-error', error: errorKind(e)}, errorMessage(e));
        }
      } finally {
        limit.dispose();
      }
    }
    if (complete && proof) {
      const early = proof;
      proof = undefined;
      // Awaited for PROOF_WAIT_MS at most, and half the time left: a failed or late proof is no verdict, and the
      // probe below finds out why with the other half (a refusal, "not yet", or a handshake never completed).
      const proved = await clock
        .deadline(Math.min(PROOF_WAIT_MS, (opts.deadline - clock.now()) / 2), {parents: [opts.signal]})
        .run(() => early)
        .catch(() => false);
      opts.signal?.throwIfAborted();
      if (proved) {
        observe({kind: 'ready'}, `${describeStage({kind: 'ready'})} (its BuildKit answered over mutual TLS)`);
        return complete;
      }
      if (clock.now() >= opts.deadline) {
        lastProblem = `the builder at ${complete.endpoint.hostname}:${complete.endpoint.port} had not answered over mutual TLS (its first connection, a Control/Info call) by the deadline`;
        continue;
      }
    }
    if (complete) {
      const ready = complete;
      const {endpoint, pems} = ready;
      const probeMs = Math.max(1, Math.min(PROBE_TIMEOUT_MS, opts.deadline - clock.now()));
      try {
        await opts.probe({
          hostname: endpoint.hostname,
          port: endpoint.port,
          pems,
          timeoutMs: probeMs,
          signal: opts.signal
        });
        observe({kind: 'ready'}, describeStage({kind: 'ready'}));
        return ready;
      } catch (e) {
        opts.signal?.throwIfAborted();
        // A probe the deadline cut short only says that time ran out: an earlier probe's reason stays the reason.
        const cutShort =
          probeMs < PROBE_TIMEOUT_MS &&
          e instanceof TlsProbeError &&
          e.kind === 'timeout' &&
          lastTlsProblem !== undefined;
        if (!cutShort) lastTlsProblem = errorMessage(e);
        lastProblem = cutShort ? (lastTlsProblem as string) : errorMessage(e);
        observe({kind: 'tls', problem: e instanceof TlsProbeError ? e.kind : 'error'}, lastProblem);
        if (e instanceof TlsProbeError && e.kind === 'rejected' && ++tlsRejections >= MAX_TLS_REJECTIONS) {
          throw new BuilderFailedError(
            builderId,
            `Builder ${builderId} at ${endpoint.hostname}:${endpoint.port} rejected the TLS material from its details: ${lastProblem}`
          );
        }
        wait = schedule.probeIntervalMs;
      }
    }
    const next = started + wait - clock.now();
    if (next > 0) await clock.sleep(Math.min(next, Math.max(0, opts.deadline - clock.now())), opts.signal);
  }
}

/** The builder as its complete details describe it. */
function readyBuilder(
  id: string,
  {details, endpoint}: {details: BuilderDetails; endpoint: BuilderEndpoint},
  detailsRequests: number
): ReadyBuilder {
  const pems: BuilderPems = {
    ca: details.metadata.ca,
    cert: details.metadata.client_cert,
    key: details.metadata.client_key
  };
  return {
    id,
    endpoint,
    arch: details.arch || undefined,
    platforms: platformsFromArch(details.arch),
    pems,
    detailsRequests,
    details
  };
}

type Verdict =
  | {kind: 'complete'; endpoint: BuilderEndpoint}
  | {kind: 'pending'; why: string; stage: BuilderStage; saysReady?: boolean};

function examine(builderId: string, details: BuilderDetails, logger: Logger): Verdict {
  const m = details.metadata;
  // The key is secret from the moment it arrives, before anything could print it.
  if (m.client_key) registerSecret(logger, m.client_key);
  const status = typeof details.status === 'string' ? details.status.toLowerCase() : undefined;
  if (status === 'failed' || status === 'error') {
    throw new BuilderFailedError(builderId, `Builder ${builderId} failed to start (status "${details.status}")`);
  }
  if (status === 'terminated' || status === 'deleted') {
    throw new BuilderFailedError(builderId, `Builder ${builderId} was terminated before it became ready`);
  }
  const missing = (['host', ...PEM_FIELDS] as const).filter(f => !m[f] || m[f].trim() === '');
  if (missing.length > 0)
    return {
      kind: 'pending',
      why: `details lack ${missing.join(', ')}${status ? ` (status "${status}")` : ''}`,
      stage: {kind: 'pending', status: status || undefined, missing},
      saysReady: status === 'ready'
    };
  if (status !== undefined && status !== 'ready')
    return {kind: 'pending', why: `status is "${status}"`, stage: {kind: 'pending', status}};
  for (const f of PEM_FIELDS) {
    if (!/-----BEGIN [A-Z0-9 ]+-----[\s\S]+-----END [A-Z0-9 ]+-----/.test(m[f])) {
      throw new BuilderFailedError(builderId, `Builder ${builderId} details carry a malformed ${f}: not a PEM block`);
    }
  }
  try {
    return {kind: 'complete', endpoint: parseBuilderEndpoint(m.host)};
  } catch (e) {
    throw new BuilderFailedError(builderId, `Builder ${builderId} details carry an unusable host: ${errorMessage(e)}`);
  }
}

/** What kind of failure a details request met, for change detection: not its message (which may vary). */
function errorKind(e: unknown): string {
  if (e instanceof ApiError) return e.status !== undefined ? `HTTP ${e.status}` : (e.code ?? 'network error');
  if (e instanceof DeadlineError) return 'no answer';
  return e instanceof Error ? e.name : 'error';
}
