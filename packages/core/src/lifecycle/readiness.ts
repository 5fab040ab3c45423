import {ApiError, errorMessage} from '../errors.js';
import type {BuilderDetails} from '../api/types.js';
import {abortReason, type Clock} from '../clock.js';
import type {Logger} from '../logger.js';
import type {BuilderPems} from '../certs/cert-store.js';
import {platformsFromArch} from '../buildx/platforms.js';
import {parseBuilderEndpoint, type BuilderEndpoint} from './builder-endpoint.js';
import type {BuilderApi} from './builder-api.js';
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
}

/** How often readiness polls. Start-to-start, so API latency does not stretch the period. */
export interface PollSchedule {
  /** Period between details requests while the builder is pending. */
  intervalMs: number;
  /** Period between TLS probes once the details are complete. */
  probeIntervalMs: number;
  /** Longest wait after consecutive errors (backoff doubles from intervalMs up to this). */
  maxBackoffMs: number;
}

/** 4 requests/s at most: a median detection lag of ~125 ms from polling. */
export const DEFAULT_POLL_SCHEDULE: PollSchedule = {intervalMs: 250, probeIntervalMs: 250, maxBackoffMs: 2000};

export interface ReadinessOpts {
  api: BuilderApi;
  clock: Clock;
  logger: Logger;
  probe: TlsProbe;
  /** Epoch ms by which the builder must be ready. */
  deadline: number;
  schedule?: PollSchedule;
  signal?: AbortSignal;
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

/** The builder was not ready by the deadline. */
export class BuilderTimeoutError extends Error {
  constructor(
    readonly builderId: string,
    message: string
  ) {
    super(message);
    this.name = 'BuilderTimeoutError';
  }
}

const PEM_FIELDS = ['ca', 'client_cert', 'client_key'] as const;
const FATAL_STATUSES = new Set([401, 403]);
/** Details 404s tolerated in a row right after assignment (the service may not know the id yet). */
const MAX_CONSECUTIVE_404 = 3;
/** TLS rejections tolerated in a row before the material is declared wrong. */
const MAX_TLS_REJECTIONS = 3;
/** Answers in a row with status "ready" but TLS material missing before the details are declared broken (~2 s). */
const MAX_READY_BUT_INCOMPLETE = 8;

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
  let consecutive404 = 0;
  let consecutiveErrors = 0;
  let tlsRejections = 0;
  let readyButIncomplete = 0;
  let complete: {details: BuilderDetails; endpoint: BuilderEndpoint} | undefined;

  for (;;) {
    throwIfAborted(opts.signal);
    const started = clock.now();
    const remaining = opts.deadline - started;
    if (remaining <= 0) {
      throw new BuilderTimeoutError(builderId, `Builder ${builderId} was not ready in time: ${lastProblem}`);
    }
    let wait = schedule.intervalMs;
    if (!complete) {
      try {
        requests++;
        const details = await opts.api.getBuilderDetails(builderId, {
          signal: timeLimited(opts.signal, remaining),
          retry: false
        });
        consecutive404 = 0;
        consecutiveErrors = 0;
        const verdict = examine(builderId, details, logger);
        if (verdict.kind === 'complete') complete = {details, endpoint: verdict.endpoint};
        else lastProblem = verdict.why;
        readyButIncomplete = verdict.kind === 'pending' && verdict.saysReady ? readyButIncomplete + 1 : 0;
        if (readyButIncomplete >= MAX_READY_BUT_INCOMPLETE) {
          throw new BuilderFailedError(
            builderId,
            `Builder ${builderId} reports status "ready" but its ${lastProblem.replace(/ \(status "ready"\)$/, '')}: the service sent incomplete connection details`
          );
        }
      } catch (e) {
        if (e instanceof BuilderFailedError) throw e;
        throwIfAborted(opts.signal);
        if (e instanceof ApiError && e.status !== undefined && FATAL_STATUSES.has(e.status)) throw e;
        if (e instanceof ApiError && e.status === 404 && ++consecutive404 >= MAX_CONSECUTIVE_404) throw e;
        lastProblem = errorMessage(e);
        consecutiveErrors++;
        wait = Math.min(schedule.maxBackoffMs, schedule.intervalMs * 2 ** consecutiveErrors);
        logger.debug(`waitForBuilderReady: ${builderId}: ${lastProblem}`);
      }
    }
    if (complete) {
      const {details, endpoint} = complete;
      const pems: BuilderPems = {
        ca: details.metadata.ca,
        cert: details.metadata.client_cert,
        key: details.metadata.client_key
      };
      try {
        await opts.probe({
          hostname: endpoint.hostname,
          port: endpoint.port,
          pems,
          timeoutMs: Math.max(1, Math.min(5000, opts.deadline - clock.now())),
          signal: opts.signal
        });
        return {
          id: builderId,
          endpoint,
          ...(details.arch ? {arch: details.arch} : {}),
          platforms: platformsFromArch(details.arch),
          pems,
          detailsRequests: requests
        };
      } catch (e) {
        throwIfAborted(opts.signal);
        lastProblem = errorMessage(e);
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

type Verdict = {kind: 'complete'; endpoint: BuilderEndpoint} | {kind: 'pending'; why: string; saysReady?: boolean};

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
      saysReady: status === 'ready'
    };
  if (status !== undefined && status !== 'ready') return {kind: 'pending', why: `status is "${status}"`};
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

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortReason(signal);
}

/** The caller's signal, also aborted after `ms` so no request outlives the deadline. */
function timeLimited(signal: AbortSignal | undefined, ms: number): AbortSignal {
  const timeout = AbortSignal.timeout(Math.max(1, Math.ceil(ms)));
  return signal ? AbortSignal.any([signal, timeout]) : timeout;
}
