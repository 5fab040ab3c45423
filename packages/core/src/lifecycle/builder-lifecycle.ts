import {ApiError, errorMessage, InputError} from '../errors.js';
import {abortReason, type Clock, systemClock} from '../clock.js';
import type {Logger} from '../logger.js';
import {nullLogger} from '../logger.js';
import {BUILDX_RM_TIMEOUT_MS, Buildx, BuildxError} from '../buildx/buildx.js';
import {unionPlatforms} from '../buildx/platforms.js';
import {createCertDir, removeBuilderCerts, removeCertDir} from '../certs/cert-store.js';
import {type BuilderState, type StateStore, saveBuilderState} from '../state.js';
import type {BuilderApi} from '../api/builder-api.js';
import {waitForAllReady} from './all-ready.js';
import {assignBuilders} from './assignment.js';
import {BuildxSetup, type ProvisionedNode} from './buildx-setup.js';
import {CancelledError} from './cancelled-error.js';
import {uniqueNodeNames} from './node-names.js';
import type {PollSchedule, ReadyBuilder} from './readiness.js';
import {teardownBuilders, type TeardownReport} from './teardown.js';
import {RETRY_IN_POST, teardownOutcome, warnNotTornDown} from './teardown-outcome.js';
import {mutualTlsProbe, type TlsProbe} from './tls-probe.js';
import {grpcBuildkitInfo, preloadBuildkitInfo, type BuildkitInfoCall} from './buildkit-info.js';
import type {InspectedBuilder} from '../docker/builder-inspect.js';
import type {RunRecorder} from '../report/run-recorder.js';
import {newBuilderName} from '../provisioning/builder-name.js';

export {DEFAULT_IN_FLIGHT_GRACE_MS} from './assignment.js';
export type {ProvisionedNode} from './buildx-setup.js';
export {nodeName, uniqueNodeNames} from './node-names.js';
export {teardownOutcome} from './teardown-outcome.js';

export interface ProvisionedBuilder {
  /** buildx builder name (also when buildx was not set up: the name it would have). */
  name: string;
  profile: string;
  builderIds: string[];
  /** By builder index (the order of builderIds). */
  nodes: ProvisionedNode[];
  /** Union of the nodes' platforms. */
  platforms: string[];
  certDir: string;
  /** Assignment request → every builder ready (TLS checked), in ms. */
  timeToReadyMs: number;
  buildxCreated: boolean;
  /** The ready builders with their endpoints and TLS material (in memory only), for health checks. */
  ready: ReadyBuilder[];
}

export interface ProvisionOpts {
  /** Profiles to try in order; the next one is tried when one cannot give ready builders. */
  profiles: string[];
  /** Per profile: assignment → ready (and buildx booted) must fit in this many ms. */
  timeoutMs: number;
  /** Create the local buildx builder (remote driver, one node per builder). */
  setupBuildx: boolean;
  /** Make it the default buildx builder. */
  use: boolean;
  /** Cancellation (SIGINT/SIGTERM): whatever is assigned is torn down before provision rejects. */
  signal?: AbortSignal;
}

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
  /** Bound on the teardown done by main after a failure or cancellation. */
  teardownTimeoutMs?: number;
  /** Told of every assignment, ready builder and teardown, for the job summary. */
  recorder?: RunRecorder;
  /** What will retry a failed teardown, in messages (default RETRY_IN_POST; the CLI names `builder down`). */
  retryHint?: string;
}

const NOTHING_TORN_DOWN: TeardownReport = {tornDown: [], alreadyGone: [], failed: []};

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
    this.state = {
      v: 1,
      builderName: name,
      builderIds: this.state?.builderIds ?? [],
      tornDownIds: this.state?.tornDownIds ?? [],
      certDir,
      apiUrl: this.opts.apiUrl,
      buildxCreated: false
    };
    this.save();

    const failures: string[] = [];
    for (const [index, profile] of opts.profiles.entries()) {
      const isLast = index === opts.profiles.length - 1;
      try {
        return await this.provisionFrom(profile, opts);
      } catch (e) {
        const pending = this.pendingIds();
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

  /** Tears down every builder in the state not yet torn down, and removes their client keys; updates the state. */
  async teardownAll(timeoutMs = this.opts.teardownTimeoutMs ?? 15000): Promise<TeardownReport> {
    const state = this.state;
    const pending = this.pendingIds();
    if (!state || pending.length === 0) return {...NOTHING_TORN_DOWN};
    const report = await teardownBuilders(this.api, pending, {logger: this.logger, clock: this.clock, timeoutMs});
    const gone = [...report.tornDown, ...report.alreadyGone];
    state.tornDownIds.push(...gone);
    this.save();
    // SECURITY.md: the keys go with the teardown, not at post (every later step of the job could read them).
    await Promise.all(
      (state.certDir ? gone : []).map(id =>
        removeBuilderCerts(state.certDir, id).catch((e: unknown) =>
          this.logger.warning(`Failed to remove the certificates of ${id} from ${state.certDir}: ${errorMessage(e)}`)
        )
      )
    );
    this.opts.recorder?.tornDown(report);
    return report;
  }

  /**
   * Ends everything provision made, at once: tears every builder down (billing stops) and, at the same
   * time, removes the buildx builder while its endpoints still answer (buildx can stall on a gone one).
   * Never throws; what fails is warned about and left in the state for the post step.
   */
  async release(opts: {teardownTimeoutMs?: number; rmTimeoutMs?: number} = {}): Promise<TeardownReport> {
    const state = this.state;
    if (!state) return {...NOTHING_TORN_DOWN};
    const removeBuildx = async (): Promise<void> => {
      if (!state.buildxCreated) return;
      try {
        await this.buildx.rm(state.builderName, {timeoutMs: opts.rmTimeoutMs ?? BUILDX_RM_TIMEOUT_MS});
        state.buildxCreated = false;
        this.save();
      } catch (e) {
        this.logger.warning(errorMessage(e));
      }
    };
    const [report] = await Promise.all([this.teardownAll(opts.teardownTimeoutMs), removeBuildx()]);
    warnNotTornDown(this.logger, report, this.opts.retryHint ?? RETRY_IN_POST);
    return report;
  }

  private async provisionFrom(profile: string, opts: ProvisionOpts): Promise<ProvisionedBuilder> {
    const state = this.state as BuilderState;
    const startedAt = this.clock.now();
    const deadline = startedAt + opts.timeoutMs;

    this.opts.recorder?.phase('assign');
    const ids = await this.logger.group(`Assigning a builder from profile "${profile}"`, async () => {
      const assigned = await assignBuilders({
        api: this.api,
        clock: this.clock,
        logger: this.logger,
        profile,
        deadline,
        signal: opts.signal,
        inFlightGraceMs: this.opts.inFlightGraceMs,
        onAssigned: (instances, sentAt) => {
          // Billed from now on: the ids go into memory first, so that a failed state write or record below
          // (it rejects the assignment) still has provision's catch tear them down and report them.
          state.builderIds.push(...instances.map(b => b.id).filter(id => !state.builderIds.includes(id)));
          state.profile = profile;
          try {
            this.save();
          } finally {
            this.opts.recorder?.assigned(profile, instances, sentAt);
          }
        }
      });
      this.logger.info(`Assigned ${count(assigned.length, 'builder')}: ${assigned.join(', ')}`);
      return assigned;
    });

    const setup = new BuildxSetup({
      buildx: this.buildx,
      clock: this.clock,
      logger: this.logger,
      builderName: state.builderName,
      certDir: state.certDir,
      nodeNames: uniqueNodeNames(ids),
      setupBuildx: opts.setupBuildx,
      use: opts.use,
      deadline,
      signal: opts.signal,
      onCreated: () => {
        state.buildxCreated = true;
        this.save();
      },
      buildkitInfo: this.buildkitInfo
    });
    try {
      this.opts.recorder?.phase('readiness');
      const ready = await this.logger.group(`Waiting for ${count(ids.length, 'builder')} to be ready`, async () => {
        const waiting = waitForAllReady(ids, {
          api: this.api,
          clock: this.clock,
          logger: this.logger,
          probe: this.probe,
          deadline,
          timeoutStartedAt: startedAt,
          signal: opts.signal,
          stop: setup.failed,
          schedule: this.opts.schedule,
          details404GraceMs: this.opts.details404GraceMs,
          recorder: this.opts.recorder,
          // The node is set up (and its BuildKit asked) as soon as the details are complete; the connection of
          // that Control/Info call spares the TLS probe when it proves the builder. Asked again once the
          // builder is proven ready, if it had not answered.
          onComplete: (b, index) => setup.add(b, index),
          onReady: (b, index) => setup.ready(b, index)
        });
        // Loaded while the details requests are on the network, for the Control/Info calls that follow.
        if (this.buildkitInfo && opts.setupBuildx) void preloadBuildkitInfo();
        const all = await waiting;
        this.logger.info(`All builders ready after ${this.clock.now() - startedAt} ms`);
        return all;
      });
      const timeToReadyMs = this.clock.now() - startedAt;

      // What is left of the certificates and the buildx builder: one phase, one log group.
      if (opts.setupBuildx) this.opts.recorder?.phase('buildx setup');
      const title = opts.setupBuildx
        ? `Setting up buildx builder "${state.builderName}" (certificates, remote driver)`
        : 'Writing the certificates';
      const nodes = await this.logger.group(title, async () => {
        const all = await setup.nodes();
        this.logger.info(`Wrote the certificates of ${count(all.length, 'node')} to ${state.certDir}`);
        if (opts.setupBuildx) this.inspectedBuilder = await setup.inspect();
        return all;
      });
      return {
        name: state.builderName,
        profile,
        builderIds: ids,
        nodes,
        platforms: unionPlatforms(nodes.map(n => n.platforms)),
        certDir: state.certDir,
        timeToReadyMs,
        buildxCreated: state.buildxCreated,
        ready
      };
    } catch (e) {
      // No buildx call may outlive the attempt: the teardown that follows removes what they made.
      await setup.halt();
      throw e;
    }
  }

  private pendingIds(): string[] {
    const state = this.state;
    return state ? state.builderIds.filter(id => !state.tornDownIds.includes(id)) : [];
  }

  private save(): void {
    if (this.state) saveBuilderState(this.store, this.state);
  }
}

/** Whether the next profile may do better: not after local buildx failures nor a key the service refuses. */
function worthFallingBack(e: unknown): boolean {
  if (e instanceof BuildxError || e instanceof InputError) return false;
  return !(e instanceof ApiError && (e.status === 401 || e.status === 403));
}

/** "1 builder", "3 builders". */
function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
