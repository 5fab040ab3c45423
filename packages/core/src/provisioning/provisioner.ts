import type {Buildx} from '../buildx/buildx.js';
import {KILL_GRACE_MS, PIPE_DRAIN_MS} from '../exec.js';
import type {ClosableBuilderApi} from '../lifecycle/builder-api-client.js';
import {BuilderLifecycle, type ProvisionedBuilder} from '../lifecycle/builder-lifecycle.js';
import {CancelledError} from '../lifecycle/cancelled-error.js';
import {explainTimeout} from '../lifecycle/readiness.js';
import type {TeardownReport} from '../lifecycle/teardown.js';
import type {Logger} from '../logger.js';
import type {RunRecorder} from '../report/run-recorder.js';
import type {StateStore} from '../state.js';
import {defaultMakeBuilderApi} from './builder-api-factory.js';
import {newBuilderName} from './builder-name.js';
import {cancellation} from './cancellation.js';
import {checkPlatformNames, requireBuildx, requireCommand, type RequireCommandOpts} from './local-checks.js';
import {guardPlatforms} from './platform-shortfall.js';
import type {ProvisionerDeps} from './step-deps.js';
import {DEFAULT_MAIN_TEARDOWN_TIMEOUT_MS, resolveDetails404GraceMs, resolveTeardownTimeoutMs} from '../inputs.js';

/** Title of the log group of the checks done before anything is assigned. */
export const LOCAL_CHECKS_GROUP = 'Checking locally before assigning (nothing is billed yet)';

/** Time allowed for tearing down after a cancellation: the runner kills the step 10 s after SIGINT. */
const CANCEL_TEARDOWN_MS = 5000;

/** What the provisioner is built with; the collaborators tests inject are ProvisionerDeps. */
export interface ProvisionerOpts extends ProvisionerDeps {
  apiUrl: string;
  token: string;
  /** Where the lifecycle saves what it assigned (the step's state, the CLI's state file). */
  state: StateStore;
  logger: Logger;
  buildx: Buildx;
  /** Per profile: assignment → ready must fit in this many ms. */
  timeoutMs: number;
  /** The input or flag that sets `timeoutMs` (`timeout`, `--timeout`), named in the timeout hint. */
  timeoutName: string;
  /** Read by the default API factory (REMOTE_BUILDER_REQUEST_TIMEOUT_MS, proxies); default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Where the certificate folder is made (RUNNER_TEMP, the CLI's --cert-dir). */
  certRoot?: string;
  /** Told of every phase, for the job summary. */
  recorder?: RunRecorder;
  /** What will retry a failed teardown, in messages (default: the actions' post step). */
  retryHint?: string;
}

/** What to check before assigning; each part is skipped when not given. */
export interface LocalChecks<T> {
  /**
   * `docker buildx version`; `note` ends the message when buildx is missing (e.g. "nothing was assigned"), `alternative` is one
   * more way out (see BuildxUnavailableError), e.g. INSTALL_BUILDX_ALTERNATIVE.
   */
  buildx?: {note?: string; alternative?: string};
  /** Requested platforms, checked for form (the builders' platforms are checked once they are ready). */
  platforms?: {values: string[]; name: string};
  /** A command to run with the builder: it must be found (CLI `builder run`). */
  command?: {name: string} & RequireCommandOpts;
  /** The caller's own local work (argv gates, the bake definition, …). */
  more?: (buildxVersion: string | undefined) => Promise<T>;
}

export interface LocalCheckResult<T> {
  /** undefined when buildx was not checked. */
  buildxVersion?: string;
  more: T;
}

/**
 * Provisioner is the one flow every action and the CLI drive: local checks (nothing billed if they fail) →
 * assign → wait → certificates + buildx → (the caller's build or later steps) → release. It owns the API
 * client (with the extended assignment limit), the lifecycle and the timeout hint; each phase logs in its
 * own group. The actions reach it through StepRun, which owns the run record; the CLI uses it directly.
 */
export class Provisioner {
  readonly api: ClosableBuilderApi;
  readonly lifecycle: BuilderLifecycle;
  readonly #opts: ProvisionerOpts;

  constructor(opts: ProvisionerOpts) {
    this.#opts = opts;
    const env = opts.env ?? process.env;
    const make = opts.makeApi ?? defaultMakeBuilderApi({env, logger: opts.logger, timeoutMs: opts.timeoutMs});
    this.api = make(opts.apiUrl, opts.token);
    this.lifecycle = new BuilderLifecycle({
      api: this.api,
      apiUrl: opts.apiUrl,
      state: opts.state,
      logger: opts.logger,
      buildx: opts.buildx,
      builderName: opts.builderName ?? newBuilderName(),
      teardownTimeoutMs: resolveTeardownTimeoutMs(env, DEFAULT_MAIN_TEARDOWN_TIMEOUT_MS),
      details404GraceMs: resolveDetails404GraceMs(env),
      certRoot: opts.certRoot,
      recorder: opts.recorder,
      clock: opts.clock,
      probe: opts.probe,
      schedule: opts.schedule,
      retryHint: opts.retryHint
    });
  }

  /** Runs the local checks in their own log group; the first that fails ends provisioning before any assignment. */
  checkLocal<T = undefined>(checks: LocalChecks<T>): Promise<LocalCheckResult<T>> {
    return runLocalChecks({logger: this.#opts.logger, buildx: this.#opts.buildx, signal: this.#opts.signal}, checks);
  }

  /**
   * Assigns and readies builders from `profiles`, in order. A failure has already torn down what was
   * assigned; a timeout is explained (which setting to raise, or why raising it would not help).
   */
  async provision(opts: {
    profiles: string[];
    setupBuildx: boolean;
    use: boolean;
    timeoutMs?: number;
  }): Promise<ProvisionedBuilder> {
    const timeoutMs = opts.timeoutMs ?? this.#opts.timeoutMs;
    try {
      return await this.lifecycle.provision({
        profiles: opts.profiles,
        timeoutMs,
        setupBuildx: opts.setupBuildx,
        use: opts.use,
        signal: this.#opts.signal
      });
    } catch (e) {
      throw explainTimeout(e, timeoutMs, this.#opts.timeoutName);
    }
  }

  /**
   * Fails when `requested` (the setting `name`) asks for an architecture no node of the ready builder offers:
   * the one platform guard (guardPlatforms), as the actions apply it.
   */
  checkOffered(builder: ProvisionedBuilder, requested: string[], name: string): void {
    guardPlatforms(builder, [{who: name, platforms: requested}], {logger: this.#opts.logger, what: name});
  }

  /**
   * Tears every assigned builder down now and removes the buildx builder, in the teardown's own log group;
   * what fails is warned about and left to the post step (or `builder down`).
   */
  async release(why: string): Promise<TeardownReport> {
    const {logger, signal} = this.#opts;
    return logger.group('Tearing down the builders', async () => {
      const report = await this.lifecycle.release(
        // Cancelled: docker took up to KILL_GRACE_MS + PIPE_DRAIN_MS to stop; buildx rm must leave room before the runner's kill.
        signal?.aborted
          ? {teardownTimeoutMs: CANCEL_TEARDOWN_MS, rmTimeoutMs: CANCEL_TEARDOWN_MS - KILL_GRACE_MS - PIPE_DRAIN_MS}
          : {}
      );
      const done = [...report.tornDown, ...report.alreadyGone];
      if (done.length > 0) logger.info(`Tore down ${done.join(', ')} ${why}`);
      return report;
    });
  }

  /** Releases the API client's sockets. */
  close(): void {
    this.api.close();
  }
}

/**
 * The local checks without a provisioner (a step on a builder it did not assign checks the same way).
 * Cancellation during a check is reported as such, not as the check's failure.
 */
export async function runLocalChecks<T = undefined>(
  env: {logger: Logger; buildx: Buildx; signal?: AbortSignal | undefined},
  checks: LocalChecks<T>
): Promise<LocalCheckResult<T>> {
  const {logger, signal} = env;
  return logger.group(LOCAL_CHECKS_GROUP, async () => {
    try {
      if (checks.platforms) checkPlatformNames(checks.platforms.values, checks.platforms.name);
      if (checks.command) requireCommand(checks.command.name, checks.command);
      const buildxVersion = checks.buildx
        ? await requireBuildx(env.buildx, {logger}, signal, checks.buildx.note, checks.buildx.alternative)
        : undefined;
      const more = (checks.more ? await checks.more(buildxVersion) : undefined) as T;
      return {buildxVersion, more};
    } catch (e) {
      throw signal?.aborted && !(e instanceof CancelledError) ? cancellation(signal, 'during the local checks') : e;
    }
  });
}
