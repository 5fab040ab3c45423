import {randomBytes} from 'node:crypto';
import type {ActionIO} from '../action-io.js';
import {unionPlatforms} from '../buildx/platforms.js';
import type {Buildx} from '../buildx/buildx.js';
import {abortReason, type Clock} from '../clock.js';
import {errorMessage} from '../errors.js';
import {KILL_GRACE_MS, NodeExec, PIPE_DRAIN_MS, type Exec} from '../exec.js';
import type {Credentials, FallbackMode} from '../inputs.js';
import type {BuilderApi} from '../lifecycle/builder-api.js';
import {createBuilderApiClient} from '../lifecycle/builder-api-client.js';
import {
  BuilderLifecycle,
  DEFAULT_IN_FLIGHT_GRACE_MS,
  teardownOutcome,
  type ProvisionedBuilder
} from '../lifecycle/builder-lifecycle.js';
import type {TeardownReport} from '../lifecycle/teardown.js';
import {createLocalFallbackBuilder, fallbackReason, removeLocalFallbackBuilder} from '../lifecycle/local-fallback.js';
import {CancelledError} from '../lifecycle/cancelled-error.js';
import {BuilderTimeoutError, explainTimeout, type PollSchedule} from '../lifecycle/readiness.js';
import type {TlsProbe} from '../lifecycle/tls-probe.js';
import {parseBuilderInspect, type InspectedBuilder} from './builder-inspect.js';
import {BuildAttemptsError, runBuildAttempts, type BuildAttemptsOpts, type BuildContext} from './build-attempts.js';
import type {CacheReport} from './cache-report.js';
import {buildSummaryEnabled} from './summary-env.js';
import {RunRecorder} from '../report/run-recorder.js';
import type {BuilderSize} from '../billing/price-table.js';
import {missingArchitectures, offeredArchitectures} from './platform-guard.js';

/** One buildx node of the builder a build runs on. */
export interface BuildNode {
  builder: string;
  node: string;
  platforms: string[];
}

/** The builder a build runs on, once it is ready. */
export interface BuildTarget {
  /** buildx builder name (the `--builder` value). */
  name: string;
  nodes: BuildNode[];
  inspect: InspectedBuilder;
  /** Profile the builders came from; undefined for a builder given by the `builder` input. */
  profile?: string;
  /** Assignment → ready, ms; undefined when nothing was assigned. */
  timeToReadyMs?: number;
  /** Set when the build runs on a local fallback builder: why no remote builder could be had. */
  fallback?: string;
}

/** Names of the action's inputs that appear in messages. */
export interface RemoteBuildInputNames {
  builder: string;
  profileName: string;
  timeout: string;
}

export interface RemoteBuildOpts<P, R> {
  io: ActionIO;
  buildx: Buildx;
  /** The `builder` input: when set, the build runs on that builder and nothing is assigned. */
  builder: string;
  /** Profiles to assign from, in order (unused with `builder`). */
  profiles: string[];
  timeoutMs: number;
  apiUrl: string;
  /** Required unless `builder` is set. */
  credentials?: Credentials;
  inputNames: RemoteBuildInputNames;
  /** Builds the API client; default ApiClient. */
  makeApi?: (apiUrl: string, token: string) => BuilderApi & {close(): void};
  clock?: Clock;
  probe?: TlsProbe;
  schedule?: PollSchedule;
  /** Aborted on SIGINT/SIGTERM. */
  signal?: AbortSignal;
  /** Name of the buildx builder to create; default `remote-builder-<random>`. */
  builderName?: string;
  /**
   * When no remote builder can be had for service reasons (5xx, no answer, never ready, failed; never for
   * bad input, a refused key or an unknown profile): `local` builds on a docker-container builder made for
   * the step (removed when the build ends, or by post), with a warning saying why. Default `none`: fail.
   */
  fallback?: FallbackMode;
  /** Runs docker for the local fallback builder; default NodeExec. */
  exec?: Exec;
  /** The docker CLI for the local fallback builder; default `docker`. */
  docker?: string;
  /**
   * Local work (buildx version, argv checks, the bake definition, …), done before anything is assigned: a
   * missing buildx or a bad bake file must cost nothing. Runs once, also when the build falls back to a local
   * builder (so its warnings print once).
   */
  prepare: () => Promise<P>;
  /**
   * The build itself, on a ready builder; runs again on a retry. It must use `ctx.signal` (aborted on
   * cancellation and when a builder is lost), call `ctx.reportRun` once its command ran, and throw a
   * BuildCommandError (with the output) when the command fails. After an assignment the builders are torn
   * down when it ends.
   */
  build: (prepared: P, target: BuildTarget, ctx: BuildContext) => Promise<R>;
  /** Extra builds after an infrastructure failure on assigned builders (`retries` input); default 0. */
  retries?: number;
  /** The job summary's record: which action, and the builder size from an input when the service says none. */
  report?: {action: 'build-push' | 'bake'; sizeHint?: BuilderSize};
  /** Output names set at the end (attempts, time to ready, cache), when given. */
  outputs?: RemoteBuildOutputs;
  /** Watchdog timing (tests); production defaults otherwise. */
  watch?: BuildAttemptsOpts<unknown, unknown>['watch'];
}

/** Outputs a build step sets about its attempts, its builders and the cache. */
export interface RemoteBuildOutputs {
  attempts: string;
  timeToReady: string;
  cachedSteps: string;
  cacheRatio: string;
}

/** Time allowed for tearing down in main after a cancellation: the runner kills the step 10 s after SIGINT. */
const CANCEL_TEARDOWN_MS = 5000;

/**
 * Runs one build step on a remote builder. Without `builder`: runs `prepare` (local checks; nothing is
 * billed if they fail), assigns and waits for the builders (buildx remote driver, never the default
 * builder), runs `build`, and tears everything down at once when the build ends, fails or is cancelled.
 * With `builder`: runs `prepare` and `build` on that builder (checked with `buildx inspect --bootstrap`).
 */
export async function runRemoteBuild<P, R>(opts: RemoteBuildOpts<P, R>): Promise<R> {
  return opts.builder !== '' ? onSharedBuilder(opts) : onAssignedBuilder(opts);
}

async function onAssignedBuilder<P, R>(opts: RemoteBuildOpts<P, R>): Promise<R> {
  const {io} = opts;
  const credentials = opts.credentials;
  if (!credentials) throw new Error('runRemoteBuild: credentials are required to assign a builder');
  const api = opts.makeApi
    ? opts.makeApi(opts.apiUrl, credentials.token)
    : createBuilderApiClient({
        apiUrl: opts.apiUrl,
        token: credentials.token,
        env: io.env,
        logger: io.logger,
        assignTimeoutMs: opts.timeoutMs + DEFAULT_IN_FLIGHT_GRACE_MS + 1000
      });
  const builderName = opts.builderName ?? `remote-builder-${randomBytes(4).toString('hex')}`;
  try {
    // Local checks first, in parallel with nothing that bills: a missing buildx or a bad bake file costs nothing.
    let prepared: P;
    try {
      prepared = await opts.prepare();
    } catch (e) {
      throw opts.signal?.aborted ? cancellation(opts.signal, 'while preparing the build') : e;
    }
    const recorder = new RunRecorder({
      action: opts.report?.action ?? 'build-push',
      state: io.state,
      summary: buildSummaryEnabled(io),
      secrets: [credentials.token],
      ...(opts.report?.sizeHint ? {sizeHint: opts.report.sizeHint} : {})
    });
    const lifecycle = new BuilderLifecycle({
      api,
      apiUrl: opts.apiUrl,
      state: io.state,
      logger: io.logger,
      buildx: opts.buildx,
      certRoot: io.env['RUNNER_TEMP'],
      builderName,
      recorder,
      ...(opts.clock ? {clock: opts.clock} : {}),
      ...(opts.probe ? {probe: opts.probe} : {}),
      ...(opts.schedule ? {schedule: opts.schedule} : {})
    });
    const provisioning = lifecycle.provision({
      profiles: opts.profiles,
      timeoutMs: opts.timeoutMs,
      setupBuildx: true,
      use: false,
      ...(opts.signal ? {signal: opts.signal} : {})
    });

    let builder: ProvisionedBuilder;
    try {
      builder = await provisioning;
    } catch (e) {
      const explained = explainTimeout(e, opts.timeoutMs, opts.inputNames.timeout);
      const why = opts.fallback === 'local' && !opts.signal?.aborted ? fallbackReason(e) : undefined;
      if (why === undefined) {
        recorder.finish(
          opts.signal?.aborted ? 'cancelled' : e instanceof BuilderTimeoutError ? 'timeout' : 'failure',
          explained
        );
        throw explained;
      }
      recorder.phase('local fallback');
      try {
        const result = await onLocalFallback(opts, prepared, explained, why);
        recorder.finish('success');
        return result;
      } catch (err) {
        recorder.finish(opts.signal?.aborted ? 'cancelled' : 'failure', err);
        throw err;
      }
    }

    let timeToReadyMs = builder.timeToReadyMs;
    try {
      const done = await runBuildAttempts<BuildTarget, R>({
        retries: opts.retries ?? 0,
        api,
        probe: lifecycle.tlsProbe,
        logger: io.logger,
        ...(opts.signal ? {signal: opts.signal} : {}),
        ...(opts.watch ? {watch: opts.watch} : {}),
        first: {ready: builder.ready, target: targetOf(builder, lifecycle.bootstrapOutput)},
        build: (target, ctx) => {
          recorder.phase('build');
          return opts.build(prepared, target, ctx);
        },
        replace: async why => {
          // The lost builders go first (billing stops), then new ones within what is left of the timeout.
          await tearDownNow(lifecycle, io, opts.signal, `after: ${why}`);
          const left = opts.timeoutMs - timeToReadyMs;
          if (left <= 0) {
            throw new Error(
              `No time is left of "${opts.inputNames.timeout}" (${opts.timeoutMs} ms, spent waiting for builders) to get a new builder: raise it to allow a replacement`
            );
          }
          try {
            builder = await lifecycle.provision({
              profiles: opts.profiles,
              timeoutMs: left,
              setupBuildx: true,
              use: false,
              ...(opts.signal ? {signal: opts.signal} : {})
            });
          } catch (e) {
            throw explainTimeout(e, left, opts.inputNames.timeout);
          }
          timeToReadyMs += builder.timeToReadyMs;
          return {ready: builder.ready, target: targetOf(builder, lifecycle.bootstrapOutput)};
        },
        onAttempt: a => recorder.attempt(a)
      });
      // The build is done and nothing else in the job uses this builder: stop billing now, not at post.
      await tearDownNow(lifecycle, io, opts.signal, 'after the build; billing stopped');
      setBuildOutputs(io, opts.outputs, {attempts: done.attempts, timeToReadyMs, cache: done.cache});
      recorder.finish('success');
      return done.result;
    } catch (e) {
      const report = await tearDownNow(lifecycle, io, opts.signal, 'after the failure');
      const attempts = e instanceof BuildAttemptsError ? e.attempts : recorder.record.attempts.length;
      setBuildOutputs(io, opts.outputs, {attempts, timeToReadyMs});
      // A cancelled run says what became of the builders: never "torn down" when a teardown failed.
      if (e instanceof CancelledError || opts.signal?.aborted) {
        const cancelled = e instanceof CancelledError ? e : cancellation(opts.signal, 'during the build');
        const error = new CancelledError(`${cancelled.message}; ${teardownOutcome(report)}`);
        recorder.finish('cancelled', error);
        throw error;
      }
      recorder.finish(e instanceof BuilderTimeoutError ? 'timeout' : 'failure', e);
      throw e;
    }
  } finally {
    api.close();
  }
}

/**
 * Builds on a docker-container builder made for this step, after the remote builders failed for service
 * reasons (see createLocalFallbackBuilder for why not the runner's default builder). Removed when the build
 * ends; post removes it when main could not.
 */
async function onLocalFallback<P, R>(
  opts: RemoteBuildOpts<P, R>,
  prepared: P,
  failure: unknown,
  why: string
): Promise<R> {
  const {io} = opts;
  io.logger.warning(
    `No remote builder could be had (${errorMessage(failure)}): ${why}. Building on a local docker-container builder instead (fallback: local), on this runner and without the remote cache`
  );
  const exec = opts.exec ?? new NodeExec({logger: io.logger});
  try {
    const local = await io.logger.group('Creating a local fallback builder', async () => {
      try {
        return await createLocalFallbackBuilder({
          exec,
          ...(opts.docker ? {docker: opts.docker} : {}),
          logger: io.logger,
          state: io.state,
          ...(opts.signal ? {signal: opts.signal} : {})
        });
      } catch (e) {
        if (opts.signal?.aborted) throw cancellation(opts.signal, 'while creating the local fallback builder');
        throw new Error(`No remote builder could be had, and the local fallback failed too: ${errorMessage(e)}`, {
          cause: e
        });
      }
    });
    const inspect = parseBuilderInspect(local.inspectOutput);
    return await opts.build(
      prepared,
      {
        name: local.name,
        inspect,
        nodes: inspect.nodes.map(n => ({builder: local.name, node: n.name, platforms: n.platforms})),
        fallback: why
      },
      singleAttempt(opts.signal)
    );
  } finally {
    await removeLocalFallbackBuilder({buildx: opts.buildx, logger: io.logger, state: io.state});
  }
}

async function onSharedBuilder<P, R>(opts: RemoteBuildOpts<P, R>): Promise<R> {
  const {io, builder, inputNames} = opts;
  if (io.getInput(inputNames.profileName) !== '') {
    io.logger.info(
      `Input "${inputNames.builder}" is set: building on "${builder}"; "${inputNames.profileName}" is not used`
    );
  }
  const prepared = await opts.prepare();
  const output = await io.logger.group(`Builder "${builder}"`, async () => {
    try {
      return await opts.buildx.bootstrap(builder, {signal: opts.signal, timeoutMs: 120000});
    } catch (e) {
      if (opts.signal?.aborted) throw cancellation(opts.signal, 'while inspecting the builder');
      throw new Error(
        `Input "${inputNames.builder}": ${errorMessage(e)}. Create the builder in an earlier step (e.g. with the configure action) or leave "${inputNames.builder}" empty to assign one from "${inputNames.profileName}"`,
        {cause: e}
      );
    }
  });
  const inspect = parseBuilderInspect(output);
  return opts.build(
    prepared,
    {
      name: builder,
      inspect,
      nodes: inspect.nodes.map(n => ({builder, node: n.name, platforms: n.platforms}))
    },
    singleAttempt(opts.signal)
  );
}

/**
 * The one build of a builder this step did not assign (the `builder` input, a local fallback): no watchdog
 * and no retry, since nothing here can check or replace such a builder.
 */
function singleAttempt(signal: AbortSignal | undefined): BuildContext {
  return {...(signal ? {signal} : {}), attempt: 1, reportRun: () => undefined};
}

/** The buildx builder provision made, as the build sees it. */
function targetOf(builder: ProvisionedBuilder, bootstrapOutput: string | undefined): BuildTarget {
  const inspect = parseBuilderInspect(bootstrapOutput ?? '');
  return {
    name: builder.name,
    profile: builder.profile,
    timeToReadyMs: builder.timeToReadyMs,
    inspect,
    nodes: builder.nodes.map(n => ({
      builder: builder.name,
      node: n.name,
      platforms: unionPlatforms([n.platforms, inspect.nodes.find(i => i.name === n.name)?.platforms ?? []])
    }))
  };
}

/** Sets the attempts, time-to-ready and cache outputs (when the action names them). */
function setBuildOutputs(
  io: ActionIO,
  names: RemoteBuildOutputs | undefined,
  facts: {attempts: number; timeToReadyMs: number; cache?: CacheReport}
): void {
  if (!names) return;
  io.setOutput(names.attempts, String(facts.attempts));
  io.setOutput(names.timeToReady, String(facts.timeToReadyMs));
  if (facts.cache) {
    io.setOutput(names.cachedSteps, `${facts.cache.cached}/${facts.cache.steps}`);
    io.setOutput(names.cacheRatio, facts.cache.ratio.toFixed(2));
  }
}

/** What a builder lacks for the requested platforms, and how to fix it. */
export interface PlatformShortfall {
  /** Requested architectures no node offers, in request order. */
  missing: string[];
  /** What the nodes offer, e.g. "amd64, 386". */
  has: string;
  /** The fix, e.g. `enable arm64 on builder profile "p" in the web UI`. */
  fix: string;
}

/** Union of the platforms the target's nodes report; [] when none reports any. */
export function offeredPlatforms(target: Pick<BuildTarget, 'nodes'>): string[] {
  return unionPlatforms(target.nodes.map(n => n.platforms));
}

/**
 * The architectures of `requested` that no node of the target offers (spec §1 rule 4, §7: such a build
 * fails with "exec format error"); undefined when nothing is missing or the nodes report no platforms.
 */
export function platformShortfall(
  target: Pick<BuildTarget, 'nodes' | 'profile' | 'fallback'>,
  requested: string[]
): PlatformShortfall | undefined {
  const offered = offeredPlatforms(target);
  const missing = missingArchitectures(requested, offered);
  if (missing.length === 0) return undefined;
  const archs = missing.join(' and ');
  const fix =
    target.fallback !== undefined
      ? `install QEMU for ${archs} on the runner (docker/setup-qemu-action) so the local fallback builder can emulate it`
      : target.profile !== undefined
        ? `enable ${archs} on builder profile "${target.profile}" in the web UI`
        : `use a builder with a ${archs} node (e.g. made by the configure action from a profile with ${archs} enabled)`;
  return {missing, has: [...offeredArchitectures(offered)].join(', '), fix};
}

/** `docker buildx version`, logged; fails with the fix when docker or buildx is missing. */
export async function requireBuildx(
  buildx: Buildx,
  io: Pick<ActionIO, 'logger'>,
  signal?: AbortSignal
): Promise<string> {
  let version: string;
  try {
    version = await buildx.version({signal});
  } catch (e) {
    throw new Error(
      `Docker buildx is required (${errorMessage(e)}): run on a runner with the Docker CLI and buildx, or set them up with docker/setup-buildx-action`,
      {cause: e}
    );
  }
  io.logger.info(`docker buildx ${version}`);
  return version;
}

/** A CancelledError naming what stopped the step (e.g. "Cancelled by SIGINT") and where. */
export function cancellation(signal: AbortSignal | undefined, phase: string): CancelledError {
  const why = signal?.aborted ? abortReason(signal).message : 'Cancelled';
  return new CancelledError(`${why} ${phase}`);
}

/** Tears every assigned builder down now and removes the buildx builder; what fails is left to post. */
async function tearDownNow(
  lifecycle: BuilderLifecycle,
  io: ActionIO,
  signal: AbortSignal | undefined,
  why: string
): Promise<TeardownReport> {
  const report = await lifecycle.release(
    // Cancelled: docker took up to KILL_GRACE_MS + PIPE_DRAIN_MS to stop; buildx rm must leave room before the runner's kill.
    signal?.aborted
      ? {teardownTimeoutMs: CANCEL_TEARDOWN_MS, rmTimeoutMs: CANCEL_TEARDOWN_MS - KILL_GRACE_MS - PIPE_DRAIN_MS}
      : {}
  );
  const done = [...report.tornDown, ...report.alreadyGone];
  if (done.length > 0) io.logger.info(`Tore down ${done.join(', ')} ${why}`);
  return report;
}
