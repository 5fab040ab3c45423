import {ReadinessProgress} from './readiness-progress.js';
import {setImmediate as nextTurn} from 'node:timers/promises';
import {ApiError, errorMessage, InputError, PartialAssignError} from '../errors.js';
import {abortReason, type Clock, systemClock} from '../clock.js';
import {DeadlineError} from '../deadline.js';
import type {Logger} from '../logger.js';
import {nullLogger} from '../logger.js';
import {Buildx, BuildxError} from '../buildx/buildx.js';
import type {NodeCertPaths} from '../buildx/buildx-args.js';
import {unionPlatforms} from '../buildx/platforms.js';
import {createCertDir, removeCertDir, writeBuilderCerts} from '../certs/cert-store.js';
import {type BuilderState, type StateStore, saveBuilderState} from '../state.js';
import type {BuilderApi} from './builder-api.js';
import {CancelledError} from './cancelled-error.js';
import {BuilderTimeoutError, waitForBuilderReady, type PollSchedule, type ReadyBuilder} from './readiness.js';
import {teardownBuilders, type TeardownReport} from './teardown.js';
import {mutualTlsProbe, type TlsProbe} from './tls-probe.js';
import type {RunRecorder} from '../report/run-recorder.js';
import {newBuilderName} from '../provisioning/builder-name.js';

/** How long a cancelled or timed-out assignment still in flight is waited for, to tear down what it assigned. */
export const DEFAULT_IN_FLIGHT_GRACE_MS = 5000;

/** One buildx node, backed by one remote builder. */
export interface ProvisionedNode {
  /** buildx node name. */
  name: string;
  builderId: string;
  /** `tcp://host:port`. */
  endpoint: string;
  platforms: string[];
  certs: NodeCertPaths;
}

export interface ProvisionedBuilder {
  /** buildx builder name (also when buildx was not set up: the name it would have). */
  name: string;
  profile: string;
  builderIds: string[];
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
  buildx?: Buildx;
  /** Where the private certificate folder is made (RUNNER_TEMP). */
  certRoot?: string;
  /** buildx builder name; default newBuilderName(). */
  builderName?: string;
  schedule?: PollSchedule;
  /** How long after the assignment a details 404 means "not visible yet" (default DETAILS_404_GRACE_MS). */
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

/** The actions' retry of a failed teardown: their post step. */
const RETRY_IN_POST = 'the post step will try again';

/**
 * BuilderLifecycle takes a profile to ready builders: assign → details (all builders at once) →
 * TLS material complete → mutual-TLS handshake → certificates on disk → buildx remote driver.
 * State is saved the moment an assignment answers; any failure or cancellation after that tears
 * the builders down before the error propagates.
 */
export class BuilderLifecycle {
  private readonly api: BuilderApi;
  private readonly logger: Logger;
  private readonly clock: Clock;
  private readonly probe: TlsProbe;
  private readonly buildx: Buildx;
  private readonly store: StateStore;
  private readonly opts: BuilderLifecycleOpts;
  private state?: BuilderState;
  private inspectOutput?: string;

  constructor(opts: BuilderLifecycleOpts) {
    this.opts = opts;
    this.api = opts.api;
    this.logger = opts.logger ?? nullLogger;
    this.clock = opts.clock ?? systemClock;
    this.probe = opts.probe ?? mutualTlsProbe;
    this.buildx = opts.buildx ?? new Buildx({logger: this.logger});
    this.store = opts.state;
  }

  /**
   * Output of the last `buildx inspect --bootstrap` of provision (node platforms, BuildKit versions);
   * undefined when buildx was not set up.
   */
  get bootstrapOutput(): string | undefined {
    return this.inspectOutput;
  }

  /** The TLS probe readiness uses (the watchdog and health checks reach builders the same way). */
  get tlsProbe(): TlsProbe {
    return this.probe;
  }

  /** The state as last saved (for summaries and tests). */
  get currentState(): BuilderState | undefined {
    return this.state ? {...this.state} : undefined;
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
        const report = await this.cleanUpAfterFailure(e);
        if (opts.signal?.aborted) {
          // Name what stopped us (e.g. "Cancelled by SIGINT") and where; a killed buildx call says neither.
          const phase = e instanceof CancelledError ? e.message : 'while setting up the buildx builder';
          const outcome = teardownOutcome(report, this.opts.retryHint);
          throw new CancelledError(`${abortReason(opts.signal).message} ${phase}; ${outcome}`);
        }
        if (e instanceof CancelledError) throw e;
        if (isLast || !this.worthFallingBack(e)) {
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

  /** Tears down every builder in the state not yet torn down; updates the state. */
  async teardownAll(timeoutMs = this.opts.teardownTimeoutMs ?? 15000): Promise<TeardownReport> {
    const state = this.state;
    if (!state) return {tornDown: [], alreadyGone: [], failed: []};
    const pending = state.builderIds.filter(id => !state.tornDownIds.includes(id));
    if (pending.length === 0) return {tornDown: [], alreadyGone: [], failed: []};
    const report = await teardownBuilders(this.api, pending, {logger: this.logger, clock: this.clock, timeoutMs});
    state.tornDownIds.push(...report.tornDown, ...report.alreadyGone);
    this.save();
    this.opts.recorder?.tornDown(report);
    return report;
  }

  private async provisionFrom(profile: string, opts: ProvisionOpts): Promise<ProvisionedBuilder> {
    const state = this.state as BuilderState;
    const startedAt = this.clock.now();
    const deadline = startedAt + opts.timeoutMs;

    this.opts.recorder?.phase('assign');
    const ids = await this.logger.group(`Assigning a builder from profile "${profile}"`, async () => {
      const assigned = await this.assign(profile, deadline, opts.signal);
      this.logger.info(
        `Assigned ${assigned.length} builder${assigned.length === 1 ? '' : 's'}: ${assigned.join(', ')}`
      );
      return assigned;
    });

    this.opts.recorder?.phase('readiness');
    const {ready, timeToReadyMs} = await this.logger.group(
      `Waiting for ${ids.length} builder${ids.length === 1 ? '' : 's'} to be ready`,
      async () => {
        const all = await this.waitForAll(ids, deadline, startedAt, opts.signal);
        const ms = this.clock.now() - startedAt;
        this.logger.info(`All builders ready after ${ms} ms`);
        return {ready: all, timeToReadyMs: ms};
      }
    );

    // Certificates and the buildx builder: one phase, one log group.
    if (opts.setupBuildx) this.opts.recorder?.phase('buildx setup');
    const title = opts.setupBuildx
      ? `Setting up buildx builder "${state.builderName}" (certificates, remote driver)`
      : 'Writing the certificates';
    const nodes = await this.logger.group(title, async () => {
      const names = uniqueNodeNames(ready.map(b => b.id));
      const written = await Promise.all(
        ready.map(async (b, i): Promise<ProvisionedNode> => {
          const certs = await writeBuilderCerts(state.certDir, names[i], b.pems);
          return {name: names[i], builderId: b.id, endpoint: b.endpoint.url, platforms: b.platforms, certs};
        })
      );
      this.logger.info(
        `Wrote the certificates of ${written.length} node${written.length === 1 ? '' : 's'} to ${state.certDir}`
      );
      if (opts.setupBuildx) this.inspectOutput = await this.setupBuildx(written, deadline, opts);
      return written;
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
  }

  /**
   * Sends the assignment and waits for its answer until the profile's deadline. The request is tied neither to
   * the cancellation signal nor to the deadline: once sent it may be processed, so when either comes first we
   * wait a grace period for the answer, to learn what to tear down, before giving up on it.
   */
  private async assign(profile: string, deadline: number, signal?: AbortSignal): Promise<string[]> {
    throwIfCancelled(signal, `before assigning from profile "${profile}"`);
    const state = this.state as BuilderState;
    const waitMs = Math.max(1, deadline - this.clock.now());
    const sentAt = this.clock.now();
    const abandon = new AbortController();
    const request = this.api.assignBuilder(profile, {signal: abandon.signal});
    const record = (ids: string[]): string[] => {
      state.builderIds.push(...ids.filter(id => !state.builderIds.includes(id)));
      state.profile = profile;
      this.save();
      return ids;
    };
    const tracked = request.then(
      res => {
        this.opts.recorder?.assigned(profile, res.builder_instances, sentAt);
        return record(res.builder_instances.map(b => b.id));
      },
      (e: unknown) => {
        // Bad entries next to good ones: the good ones are billed, so they are saved to be torn down.
        if (e instanceof PartialAssignError) {
          this.opts.recorder?.assigned(
            profile,
            e.assignedIds.map(id => ({id})),
            sentAt
          );
          record(e.assignedIds);
        }
        throw e;
      }
    );
    tracked.catch(() => undefined);
    // Stopped by the cancellation or, through the injected clock, by the profile's deadline.
    const stop = new AbortController();
    const onCancel = (): void => stop.abort(abortReason(signal as AbortSignal));
    signal?.addEventListener('abort', onCancel, {once: true});
    const deadlineTimer = new AbortController();
    try {
      // An answer already there needs no deadline timer (and a fake clock's sleep would move its time).
      if (!(await answeredAlready(tracked)) && !stop.signal.aborted) {
        this.clock.sleep(waitMs, deadlineTimer.signal).then(
          () => stop.abort(new DeadlineError(`the assignment got no answer within ${waitMs} ms`)),
          () => undefined
        );
      }
      return await raceAbort(tracked, stop.signal);
    } catch (e) {
      if (!stop.signal.aborted) {
        const unknown = unknownOutcome(e);
        if (unknown) {
          this.logger.warning(
            `The assignment from profile "${profile}" ${unknown}; if the service processed it, a builder may be billed until its idle time-out: check the builders in the web UI`
          );
        }
        throw e;
      }
      const cancelled = signal?.aborted === true;
      const grace = this.opts.inFlightGraceMs ?? DEFAULT_IN_FLIGHT_GRACE_MS;
      this.logger.info(
        cancelled
          ? `Cancelled while the assignment was in flight; waiting up to ${grace} ms for its answer to tear it down`
          : `The assignment from profile "${profile}" got no answer within ${waitMs} ms; waiting up to ${grace} ms more for a late answer to tear it down`
      );
      let refused = false;
      const late = await this.within(tracked, grace).catch((err: unknown) => {
        // An HTTP error answer says the service did not assign; anything else leaves the outcome unknown.
        refused = err instanceof ApiError && err.status !== undefined;
        return undefined;
      });
      if (late === undefined && !refused) {
        abandon.abort(new Error('no answer in time'));
        this.logger.warning(
          cancelled
            ? `The assignment from profile "${profile}" did not answer within ${grace} ms of cancellation; if the service processed it, a builder may still be billed: check the builders in the web UI`
            : `The assignment from profile "${profile}" did not answer within ${this.clock.now() - sentAt} ms; if the service processed it, a builder may still be billed: check the builders in the web UI`
        );
      }
      if (cancelled) throw new CancelledError(`while assigning a builder from profile "${profile}"`);
      throw new BuilderTimeoutError(
        '',
        `The service did not answer the assignment from profile "${profile}" in time${late ? ` (its late answer, ${late.join(', ')}, is torn down)` : ''}`
      );
    } finally {
      signal?.removeEventListener('abort', onCancel);
      deadlineTimer.abort();
    }
  }

  /** `p`'s value, or undefined when it has not settled within `ms` of the injected clock. */
  private within<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
    const timer = new AbortController();
    return new Promise<T | undefined>((resolve, reject) => {
      this.clock.sleep(ms, timer.signal).then(
        () => resolve(undefined),
        () => undefined
      );
      p.then(
        v => {
          timer.abort();
          resolve(v);
        },
        (e: unknown) => {
          timer.abort();
          reject(e);
        }
      );
    });
  }

  private async waitForAll(
    ids: string[],
    deadline: number,
    timeoutStartedAt: number,
    signal?: AbortSignal
  ): Promise<ReadyBuilder[]> {
    const stopOthers = new AbortController();
    // One tracker for all builders of this provision: one progress line every 10 s, not one per builder.
    const progress = new ReadinessProgress({ids, since: this.clock.now(), deadline, timeoutStartedAt});
    const combined = signal ? AbortSignal.any([signal, stopOthers.signal]) : stopOthers.signal;
    try {
      return await Promise.all(
        ids.map(async id => {
          try {
            const b = await waitForBuilderReady(id, {
              api: this.api,
              clock: this.clock,
              logger: this.logger,
              probe: this.probe,
              deadline,
              progress,
              signal: combined,
              ...(this.opts.schedule ? {schedule: this.opts.schedule} : {}),
              ...(this.opts.details404GraceMs !== undefined ? {details404GraceMs: this.opts.details404GraceMs} : {})
            });
            if (b.details) this.opts.recorder?.ready(id, b.details);
            const arch = b.arch ? ` (${b.arch})` : '';
            this.logger.info(
              `Builder ${id} ready at ${b.endpoint.url}${arch}${b.endpoint.defaultedPort ? ' (port not given; assumed)' : ''}`
            );
            return b;
          } catch (e) {
            if (!stopOthers.signal.aborted) stopOthers.abort(e);
            throw e;
          }
        })
      );
    } catch (e) {
      if (signal?.aborted) throw new CancelledError('while waiting for builders to be ready');
      // Promise.all rejects with the first failure, which is the one that aborted the others.
      throw e;
    }
  }

  private async setupBuildx(nodes: ProvisionedNode[], deadline: number, opts: ProvisionOpts): Promise<string> {
    const state = this.state as BuilderState;
    const create = (node: ProvisionedNode, append: boolean): Promise<void> =>
      this.buildx.createNode(
        {
          name: state.builderName,
          node: node.name,
          endpoint: node.endpoint,
          certs: node.certs,
          platforms: node.platforms,
          append,
          use: opts.use
        },
        {signal: opts.signal, timeoutMs: Math.max(1000, deadline - this.clock.now())}
      );
    const [first, ...others] = nodes;
    if (!first) throw new Error('no builder to set up');
    throwIfCancelled(opts.signal, 'while setting up the buildx builder');
    await create(first, false);
    state.buildxCreated = true;
    this.save();
    // buildx serialises writes to its store with a file lock, so the other nodes are appended at once.
    await Promise.all(others.map(node => create(node, true)));
    throwIfCancelled(opts.signal, 'while setting up the buildx builder');
    const inspectOutput = await this.buildx.bootstrap(state.builderName, {
      signal: opts.signal,
      timeoutMs: Math.max(1000, deadline - this.clock.now())
    });
    if (opts.signal?.aborted) throw new CancelledError('while booting the buildx builder');
    return inspectOutput;
  }

  /** After a failed attempt: tear down its builders now (billing stops), and forget the buildx builder. */
  private async cleanUpAfterFailure(cause: unknown): Promise<TeardownReport> {
    const state = this.state as BuilderState;
    const pending = state.builderIds.filter(id => !state.tornDownIds.includes(id));
    if (pending.length > 0) this.logger.info(`Tearing down ${pending.join(', ')} after: ${errorMessage(cause)}`);
    return this.release();
  }

  /**
   * Ends everything provision made, at once: tears every builder down (billing stops) and, at the same
   * time, removes the buildx builder while its endpoints still answer (buildx can stall on a gone one).
   * Never throws; what fails is warned about and left in the state for the post step.
   */
  async release(opts: {teardownTimeoutMs?: number; rmTimeoutMs?: number} = {}): Promise<TeardownReport> {
    const state = this.state;
    if (!state) return {tornDown: [], alreadyGone: [], failed: []};
    const removeBuildx = async (): Promise<void> => {
      if (!state.buildxCreated) return;
      try {
        await this.buildx.rm(state.builderName, {timeoutMs: opts.rmTimeoutMs ?? 10000});
        state.buildxCreated = false;
        this.save();
      } catch (e) {
        this.logger.warning(errorMessage(e));
      }
    };
    const [report] = await Promise.all([this.teardownAll(opts.teardownTimeoutMs), removeBuildx()]);
    const retry = this.opts.retryHint ?? RETRY_IN_POST;
    for (const f of report.failed) {
      this.logger.warning(
        `Builder ${f.id} could not be torn down and may still be billed: ${f.error}. ${retry.charAt(0).toUpperCase()}${retry.slice(1)}.`
      );
    }
    return report;
  }

  private worthFallingBack(e: unknown): boolean {
    // Local buildx failures would repeat on any profile, and so would a key the service refuses.
    if (e instanceof BuildxError || e instanceof InputError) return false;
    return !(e instanceof ApiError && (e.status === 401 || e.status === 403));
  }

  private save(): void {
    if (this.state) saveBuilderState(this.store, this.state);
  }
}

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

/** A buildx node name from a builder id (buildx allows letters, digits, '-', '_' and '.'). */
export function nodeName(builderId: string, index: number): string {
  const cleaned = builderId.replace(/[^A-Za-z0-9_.-]/g, '-').replace(/^[^A-Za-z0-9]+/, '');
  return cleaned !== '' ? cleaned : `node-${index}`;
}

/** Node names for builder ids, distinct even when two ids clean up to the same name. */
export function uniqueNodeNames(ids: string[]): string[] {
  const seen = new Set<string>();
  return ids.map((id, i) => {
    let name = nodeName(id, i);
    for (let n = 2; seen.has(name); n++) name = `${nodeName(id, i)}-${n}`;
    seen.add(name);
    return name;
  });
}

/**
 * When an assignment failed in a way that leaves open whether the service assigned (and bills) a builder,
 * how to say so: no answer after sending, a 5xx other than 501/503/505 (the service may have created the
 * builder before failing; 503 is retried as "not processed"), or a 2xx answer we cannot read. Undefined
 * when the failure proves nothing was assigned (4xx, never sent) or names what was (PartialAssignError).
 */
function unknownOutcome(e: unknown): string | undefined {
  if (!(e instanceof ApiError) || e instanceof PartialAssignError) return undefined;
  if (e.status === undefined)
    return e.notSent ? undefined : `was sent but got no answer (${e.code ?? 'network error'})`;
  if (e.status >= 500 && e.status !== 501 && e.status !== 503 && e.status !== 505) {
    return `failed with HTTP ${e.status}, which does not say whether a builder was assigned first`;
  }
  if (e.status >= 200 && e.status <= 299) return `got an answer that could not be read (HTTP ${e.status})`;
  return undefined;
}

function throwIfCancelled(signal: AbortSignal | undefined, phase: string): void {
  if (signal?.aborted) throw new CancelledError(phase);
}

function raceAbort<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(abortReason(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortReason(signal));
    signal.addEventListener('abort', onAbort, {once: true});
    p.then(
      v => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      e => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      }
    );
  });
}

/** Whether `p` has settled by the next turn of the event loop (no time is read). */
async function answeredAlready(p: Promise<unknown>): Promise<boolean> {
  return Promise.race([
    p.then(
      () => true,
      () => true
    ),
    nextTurn().then(() => false)
  ]);
}
