import {ApiError, errorMessage, InputError} from '../errors.js';
import {abortReason, type Clock, systemClock} from '../clock.js';
import type {Logger} from '../logger.js';
import {nullLogger} from '../logger.js';
import {Buildx, BuildxError} from '../buildx/buildx.js';
import {createCertDir, removeBuilderCerts, removeCertDir} from '../certs/cert-store.js';
import {type BuilderState, pendingBuilderIds, type StateStore, saveBuilderState} from '../state.js';
import type {BuilderApi} from '../api/builder-api.js';
import {CancelledError} from './cancelled-error.js';
import type {PollSchedule} from './readiness.js';
import {provisionProfile, type ProvisionedBuilder, type ProvisionOpts} from './profile-provision.js';
import {noTeardown, tearDownState, type TeardownReport} from './teardown.js';
import {BUILDX_RM_TIMEOUT_MS, DEFAULT_MAIN_TEARDOWN_TIMEOUT_MS, type TeardownLimits} from './teardown-limits.js';
import {RETRY_IN_POST, teardownOutcome, warnNotTornDown} from './teardown-outcome.js';
import {mutualTlsProbe, type TlsProbe} from './tls-probe.js';
import {grpcBuildkitInfo, type BuildkitInfoCall} from './buildkit-info.js';
import type {InspectedBuilder} from '../docker/builder-inspect.js';
import {newBuilderName} from './builder-name.js';
import type {LifecycleEvents} from './lifecycle-events.js';

export {DEFAULT_IN_FLIGHT_GRACE_MS} from './assignment.js';
export type {ProvisionedNode} from './buildx-setup.js';
export type {ProvisionedBuilder, ProvisionOpts} from './profile-provision.js';
export {nodeName, uniqueNodeNames} from './node-names.js';
export {teardownOutcome} from './teardown-outcome.js';

export interface BuilderLifecycleOpts {
  api: BuilderApi;
  /** Saved in state so post talks to the same service. */
  apiUrl: string;
  state: StateStore;
  logger?: Logger;
  clock?: Clock;
  probe?: TlsProbe;
  /**
   * Asks a builder's BuildKit its version, so that no `buildx inspect --bootstrap` is needed. Default:
   * the gRPC call, with the real probe; none (always bootstrap) with an injected probe, whose builders a
   * test scripts and which may not be reachable at all.
   */
  buildkitInfo?: BuildkitInfoCall;
  buildx?: Buildx;
  /** Where the private certificate folder is made (RUNNER_TEMP). */
  certRoot?: string;
  /** buildx builder name; default newBuilderName(). */
  builderName?: string;
  schedule?: PollSchedule;
  /** How long after the assignment a details 404 means "not visible yet" (default DEFAULT_DETAILS_404_GRACE_MS). */
  details404GraceMs?: number;
  /** How long a cancelled run waits for an assignment already in flight, to tear it down. */
  inFlightGraceMs?: number;
  /** Limits of the teardown after a failure or cancellation, and of release() by default (teardownLimits('main')). */
  teardownLimits?: TeardownLimits;
  /** Told of every phase, assignment, ready builder and teardown (the run records them). */
  events?: LifecycleEvents;
  /** What will retry a failed teardown, in messages (default RETRY_IN_POST; the CLI names `builder down`). */
  retryHint?: string;
}

/**
 * BuilderLifecycle takes a profile to ready builders: assign (assignment.ts) → every builder ready, each made
 * a buildx node the moment it is (all-ready.ts, buildx-setup.ts) → inspected (from BuildKit's own answers, else
 * `buildx inspect --bootstrap`). State is saved the moment an
 * assignment answers; any failure or cancellation after that tears the builders down before the error
 * propagates.
 */
export class BuilderLifecycle {
  private readonly api: BuilderApi;
  private readonly logger: Logger;
  private readonly clock: Clock;
  private readonly probe: TlsProbe;
  private readonly buildkitInfo?: BuildkitInfoCall;
  private readonly buildx: Buildx;
  private readonly store: StateStore;
  private readonly opts: BuilderLifecycleOpts;
  private state?: BuilderState;
  private inspectedBuilder?: InspectedBuilder;

  constructor(opts: BuilderLifecycleOpts) {
    this.opts = opts;
    this.api = opts.api;
    this.logger = opts.logger ?? nullLogger;
    this.clock = opts.clock ?? systemClock;
    this.probe = opts.probe ?? mutualTlsProbe;
    this.buildkitInfo = opts.buildkitInfo ?? (opts.probe ? undefined : grpcBuildkitInfo);
    this.buildx = opts.buildx ?? new Buildx({logger: this.logger});
    this.store = opts.state;
  }

  /**
   * The buildx builder provision set up, as `buildx inspect --bootstrap` reports it (node platforms, BuildKit
   * versions); undefined when buildx was not set up.
   */
  get inspected(): InspectedBuilder | undefined {
    return this.inspectedBuilder;
  }

  /** The TLS probe readiness uses (the watchdog and health checks reach builders the same way). */
  get tlsProbe(): TlsProbe {
    return this.probe;
  }

  /**
   * Assigns and readies builders from the profiles, in order. Called again (after release(), e.g. to replace
   * a lost builder) it makes a new buildx builder and certificate folder but keeps every builder id ever
   * assigned in the state, so post still tears down any that main could not.
   */
  async provision(opts: ProvisionOpts): Promise<ProvisionedBuilder> {
    if (opts.profiles.length === 0) throw new Error('no builder profile given');
    // A replacement: the released builders' certificates go (post only knows the newest folder).
    if (this.state?.certDir) {
      await removeCertDir(this.state.certDir).catch((e: unknown) =>
        this.logger.warning(`Failed to remove ${this.state?.certDir}: ${errorMessage(e)}`)
      );
    }
    const certDir = await createCertDir(this.opts.certRoot);
    const name = this.state === undefined && this.opts.builderName ? this.opts.builderName : newBuilderName();
    const state: BuilderState = {
      v: 1,
      builderName: name,
      builderIds: this.state?.builderIds ?? [],
      tornDownIds: this.state?.tornDownIds ?? [],
      certDir,
      apiUrl: this.opts.apiUrl,
      buildxCreated: false
    };
    this.state = state;
    this.save();

    const failures: string[] = [];
    for (const [index, profile] of opts.profiles.entries()) {
      const isLast = index === opts.profiles.length - 1;
      try {
        const {events, schedule, details404GraceMs, inFlightGraceMs} = this.opts;
        const made = await provisionProfile(profile, opts, {
          events,
          schedule,
          details404GraceMs,
          inFlightGraceMs,
          api: this.api,
          clock: this.clock,
          logger: this.logger,
          probe: this.probe,
          buildkitInfo: this.buildkitInfo,
          buildx: this.buildx,
          state,
          save: () => this.save()
        });
        this.inspectedBuilder = made.inspected;
        return made.builder;
      } catch (e) {
        const pending = pendingBuilderIds(state);
        if (pending.length > 0) this.logger.info(`Tearing down ${pending.join(', ')} after: ${errorMessage(e)}`);
        const report = await this.release();
        if (opts.signal?.aborted) {
          // Name what stopped us (e.g. "Cancelled by SIGINT") and where; a killed buildx call says neither.
          const phase = e instanceof CancelledError ? e.message : 'while setting up the buildx builder';
          const outcome = teardownOutcome(report, this.opts.retryHint);
          throw new CancelledError(`${abortReason(opts.signal).message} ${phase}; ${outcome}`);
        }
        if (e instanceof CancelledError) throw e;
        if (isLast || !worthFallingBack(e)) {
          throw failures.length > 0 ? new Error(`${failures.join('; ')}; ${errorMessage(e)}`, {cause: e}) : e;
        }
        failures.push(`profile "${profile}": ${errorMessage(e)}`);
        this.logger.warning(
          `Profile "${profile}" gave no ready builder (${errorMessage(e)}); trying "${opts.profiles[index + 1]}"`
        );
      }
    }
    /* c8 ignore next */
    throw new Error('unreachable');
  }

  /**
   * Ends everything provision made, at once (tearDownState): tears every builder down (billing stops) and
   * removes the buildx builder while its endpoints still answer; the client keys go with their builders.
   * Never throws; what fails is warned about and left in the state for the post step.
   */
  async release(limits = this.opts.teardownLimits ?? MAIN_LIMITS): Promise<TeardownReport> {
    const state = this.state;
    if (!state) return noTeardown();
    const {report} = await tearDownState(state, {
      api: () => this.api,
      buildx: this.buildx,
      logger: this.logger,
      clock: this.clock,
      limits,
      save: () => this.save(),
      onTornDown: async r => {
        await removeKeys(state.certDir, [...r.tornDown, ...r.alreadyGone], this.logger);
        this.opts.events?.tornDown?.(r);
      }
    });
    warnNotTornDown(this.logger, report, this.opts.retryHint ?? RETRY_IN_POST);
    return report;
  }

  private save(): void {
    if (this.state) saveBuilderState(this.store, this.state);
  }
}

/** Main's limits when none are given. */
const MAIN_LIMITS: TeardownLimits = {budgetMs: DEFAULT_MAIN_TEARDOWN_TIMEOUT_MS, rmMs: BUILDX_RM_TIMEOUT_MS};

/** SECURITY.md: the client keys go with the teardown, not at post (every later step of the job could read them). */
async function removeKeys(certDir: string, ids: string[], logger: Logger): Promise<void> {
  if (!certDir) return;
  await Promise.all(
    ids.map(id =>
      removeBuilderCerts(certDir, id).catch((e: unknown) =>
        logger.warning(`Failed to remove the certificates of ${id} from ${certDir}: ${errorMessage(e)}`)
      )
    )
  );
}

/** Whether the next profile may do better: not after local buildx failures nor a key the service refuses. */
function worthFallingBack(e: unknown): boolean {
  if (e instanceof BuildxError || e instanceof InputError) return false;
  return !(e instanceof ApiError && (e.status === 401 || e.status === 403));
}
