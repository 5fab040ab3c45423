import type {BuilderSize} from '../billing/price-table.js';
import type {Buildx} from '../buildx/buildx.js';
import type {ClosableBuilderApi} from '../lifecycle/builder-api-client.js';
import {BuilderLifecycle, type ProvisionedBuilder} from '../lifecycle/builder-lifecycle.js';
import {newBuilderName} from '../lifecycle/builder-name.js';
import type {LifecycleEvents} from '../lifecycle/lifecycle-events.js';
import {explainTimeout} from '../lifecycle/readiness.js';
import {teardownLimits} from '../lifecycle/teardown-limits.js';
import type {TeardownReport} from '../lifecycle/teardown.js';
import type {TlsProbe} from '../lifecycle/tls-probe.js';
import type {Logger} from '../logger.js';
import type {InspectedBuilder} from '../docker/builder-inspect.js';
import type {RunRecord} from '../report/run-record.js';
import {RunRecorder} from '../report/run-recorder.js';
import {resolveDetails404GraceMs} from '../inputs.js';
import type {StateStore} from '../state.js';
import {defaultMakeBuilderApi} from './builder-api-factory.js';
import {setBuildOutputs} from './build-outputs.js';
import type {BuildFn, BuildStrategy} from './build-strategy.js';
import {runLocalChecks, type LocalCheckResult, type LocalChecks} from './local-checks.js';
import {failedOutcome} from './outcome.js';
import {guardPlatforms} from './platform-shortfall.js';
import type {ActionIO} from '../adapters/action-io.js';
import type {StepContext} from './step-context.js';
import type {ProvisionerDeps} from './step-deps.js';

/** What a run is about: the action, the service and its key, the limit of the wait. */
export interface StepRunSettings {
  action: RunRecord['action'];
  /** The API key; undefined on a builder the step did not assign (the `builder` input): nothing is assigned then. */
  token?: string;
  apiUrl: string;
  /** Per profile: assignment → ready must fit in this many ms. */
  timeoutMs: number;
  /** The input or flag that sets `timeoutMs` (`timeout`, `--timeout`), named in the timeout hint. */
  timeoutName: string;
  /** The builders' size from an input, when the service says none. */
  sizeHint?: BuilderSize;
}

/** A run's settings and collaborators: an action's come from its StepContext (StepRun.forStep), the CLI's its own. */
export interface StepRunOpts extends StepRunSettings, ProvisionerDeps {
  /** Where the lifecycle saves what it assigned and the run its record (the step's state, the CLI's state file). */
  state: StateStore;
  logger: Logger;
  buildx: Buildx;
  /** Read for the teardown budget, the details 404 grace and the default API factory (proxies, request limit). */
  env: NodeJS.ProcessEnv;
  /** Where the certificate folder is made (RUNNER_TEMP, the CLI's --cert-dir). */
  certRoot?: string;
  /** Whether post writes the job summary (DOCKER_BUILD_SUMMARY as main read it). */
  summary: boolean;
  /** What will retry a failed teardown, in messages (default: the actions' post step). */
  retryHint?: string;
}

/** What to assign: profiles in order, and whether to set buildx up (and make it docker's default). */
export interface AcquireOpts {
  profiles: string[];
  setupBuildx: boolean;
  use: boolean;
  /** Assignment → ready limit; default the run's `timeoutMs`. */
  timeoutMs?: number;
}

/**
 * One run of a step with the service, in one lifetime: open (the constructor) → checkLocal (nothing billed
 * if it fails) → acquire (assign, wait, certificates, buildx: the lifecycle) → build on a strategy, or keep
 * the builders (configure, the CLI) → close. It owns the run record (the job summary's facts, saved for
 * post), onto which it maps the lifecycle's events, and the API client; finish() is the one place an
 * outcome is decided.
 */
export class StepRun {
  readonly recorder: RunRecorder;
  readonly #opts: StepRunOpts;
  #api: ClosableBuilderApi | undefined;
  #lifecycle: BuilderLifecycle | undefined;

  constructor(opts: StepRunOpts) {
    this.#opts = opts;
    this.recorder = new RunRecorder({
      action: opts.action,
      state: opts.state,
      summary: opts.summary,
      secrets: opts.token !== undefined ? [opts.token] : [],
      sizeHint: opts.sizeHint
    });
  }

  /** The run of an action's step, with the step's context. */
  static forStep(ctx: StepContext, settings: StepRunSettings): StepRun {
    const {io} = ctx;
    return new StepRun({
      ...settings,
      state: io.state,
      logger: io.logger,
      buildx: ctx.buildx,
      env: io.env,
      certRoot: io.env['RUNNER_TEMP'],
      summary: ctx.summary,
      makeApi: ctx.makeApi,
      builderName: ctx.builderName,
      clock: ctx.clock,
      probe: ctx.probe,
      schedule: ctx.schedule,
      signal: ctx.signal
    });
  }

  /** The checks before anything is assigned, in their own log group (see runLocalChecks). */
  checkLocal<T = undefined>(checks: LocalChecks<T>): Promise<LocalCheckResult<T>> {
    const {logger, buildx, signal} = this.#opts;
    return runLocalChecks({logger, buildx, signal}, checks);
  }

  /**
   * Assigns and readies builders from `profiles`, in order (BuilderLifecycle.provision). A failure has torn
   * down what was assigned; a timeout is explained (which setting to raise, or why raising it would not help).
   */
  async provision(opts: AcquireOpts): Promise<ProvisionedBuilder> {
    const timeoutMs = opts.timeoutMs ?? this.#opts.timeoutMs;
    const {profiles, setupBuildx, use} = opts;
    try {
      return await this.#open().provision({profiles, timeoutMs, setupBuildx, use, signal: this.#opts.signal});
    } catch (e) {
      throw explainTimeout(e, timeoutMs, this.#opts.timeoutName);
    }
  }

  /** provision(), ending the run record when it fails (configure: nothing else follows). */
  async acquire(opts: AcquireOpts): Promise<ProvisionedBuilder> {
    try {
      return await this.provision(opts);
    } catch (e) {
      this.finish(e);
      throw e;
    }
  }

  /**
   * Keeps the builders for later steps (configure, `builder up`): the setup ends, the run succeeded; post (or
   * `builder down`) tears them down.
   */
  keep(builder: ProvisionedBuilder): void {
    this.recorder.setUp();
    if (builder.buildxCreated) this.recorder.result({builder: builder.name});
    this.finish();
  }

  /** The API client (made on first use: none exists before the local checks pass). */
  get api(): ClosableBuilderApi {
    this.#open();
    return this.#api as ClosableBuilderApi;
  }

  /** The TLS probe readiness used: the watchdog and health checks reach the builders the same way. */
  get probe(): TlsProbe {
    return this.#open().tlsProbe;
  }

  /** The buildx builder the last provision set up, as buildx reports it; undefined when buildx was not set up. */
  get inspected(): InspectedBuilder | undefined {
    return this.#lifecycle?.inspected;
  }

  /** Fails when `requested` (the setting `name`) asks for an architecture no node of `builder` offers. */
  checkOffered(builder: ProvisionedBuilder, requested: string[], name: string): void {
    guardPlatforms(builder, [{who: name, platforms: requested}], {logger: this.#opts.logger, what: name});
  }

  /**
   * Tears every assigned builder down now and removes the buildx builder, in the teardown's own log group,
   * within main's limits (shorter once cancelled); what fails is warned about and left to post (or `builder down`).
   */
  async release(why: string): Promise<TeardownReport> {
    const {logger, signal} = this.#opts;
    return logger.group('Tearing down the builders', async () => {
      const limits = signal?.aborted ? teardownLimits('cancelled', this.#opts.env) : undefined;
      const report = await this.#open().release(limits);
      const done = [...report.tornDown, ...report.alreadyGone];
      if (done.length > 0) logger.info(`Tore down ${done.join(', ')} ${why}`);
      return report;
    });
  }

  /**
   * Builds through `strategy` (which cleans up what it made), sets the run's outputs (attempts, time to
   * ready, cache), ends the run record and closes the API client.
   */
  async build<R>(strategy: BuildStrategy, build: BuildFn<R>, io: Pick<ActionIO, 'setOutput'>): Promise<R> {
    try {
      const result = await strategy.build(build);
      this.finish();
      return result;
    } catch (e) {
      this.finish(e);
      throw e;
    } finally {
      setBuildOutputs(io, strategy.facts);
      this.close();
    }
  }

  /** Ends the run record: a success without `error`, else the outcome failedOutcome reads from it. */
  finish(error?: unknown): void {
    if (error === undefined) this.recorder.finish('success');
    else this.recorder.finish(failedOutcome(error, this.#opts.signal), error);
  }

  /** Releases the API client's sockets (idempotent). */
  close(): void {
    this.#api?.close();
    this.#api = undefined;
    this.#lifecycle = undefined;
  }

  /** The lifecycle and its API client, made on first use; an API key is required. */
  #open(): BuilderLifecycle {
    if (this.#lifecycle) return this.#lifecycle;
    const o = this.#opts;
    if (o.token === undefined) throw new Error('StepRun: an API key is required to assign a builder');
    // Read before the client is made: a bad variable fails here, before anything is assigned.
    const limits = teardownLimits('main', o.env);
    const details404GraceMs = resolveDetails404GraceMs(o.env);
    const make = o.makeApi ?? defaultMakeBuilderApi({env: o.env, logger: o.logger, timeoutMs: o.timeoutMs});
    const api = make(o.apiUrl, o.token);
    this.#api = api;
    this.#lifecycle = new BuilderLifecycle({
      api,
      apiUrl: o.apiUrl,
      state: o.state,
      logger: o.logger,
      buildx: o.buildx,
      builderName: o.builderName ?? newBuilderName(),
      teardownLimits: limits,
      details404GraceMs,
      certRoot: o.certRoot,
      events: recordEvents(this.recorder),
      clock: o.clock,
      probe: o.probe,
      schedule: o.schedule,
      retryHint: o.retryHint
    });
    return this.#lifecycle;
  }
}

/** The lifecycle's events, as the run record keeps them. */
function recordEvents(recorder: RunRecorder): LifecycleEvents {
  return {
    phase: phase => recorder.phase(phase),
    assigned: (profile, instances, sentAt) => recorder.assigned(profile, instances, sentAt),
    ready: (id, details) => recorder.ready(id, details),
    tornDown: report => recorder.tornDown(report)
  };
}
