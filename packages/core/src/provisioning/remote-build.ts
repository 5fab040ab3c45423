import type {Buildx} from '../buildx/buildx.js';
import {unionPlatforms} from '../buildx/platforms.js';
import type {Clock} from '../clock.js';
import {errorMessage} from '../errors.js';
import {NodeExec, type Exec} from '../exec.js';
import type {Credentials, FallbackMode} from '../inputs.js';
import {teardownOutcome, type ProvisionedBuilder} from '../lifecycle/builder-lifecycle.js';
import {createLocalFallbackBuilder, fallbackReason, removeLocalFallbackBuilder} from '../lifecycle/local-fallback.js';
import {CancelledError} from '../lifecycle/cancelled-error.js';
import {BuilderTimeoutError, type PollSchedule} from '../lifecycle/readiness.js';
import type {TlsProbe} from '../lifecycle/tls-probe.js';
import {parseBuilderInspect, type InspectedBuilder} from '../docker/builder-inspect.js';
import {BuildAttemptsError, runBuildAttempts, type BuildAttemptsOpts, type BuildContext} from './build-attempts.js';
import type {CacheReport} from '../docker/cache-report.js';
import {RunRecorder} from '../report/run-recorder.js';
import type {BuilderSize} from '../billing/price-table.js';
import type {ActionIO} from './action-io.js';
import {BuildStepInput, BuildStepOutput, type BuildStepInputs} from './action-inputs.js';
import type {MakeBuilderApi} from './builder-api-factory.js';
import {cancellation} from './cancellation.js';
import {Provisioner, runLocalChecks} from './provisioner.js';
import {INSTALL_BUILDX_ALTERNATIVE} from './step-buildx.js';
import {injectedDeps, type StepDeps} from './step-deps.js';
import {buildSummaryEnabled} from './summary-env.js';

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
  /** How the local checks' `docker buildx version` advises when buildx is missing (LocalChecks.buildx). */
  buildxCheck?: {note?: string; alternative?: string};
  /** The `builder` input: when set, the build runs on that builder and nothing is assigned. */
  builder: string;
  /** Profiles to assign from, in order (unused with `builder`). */
  profiles: string[];
  timeoutMs: number;
  apiUrl: string;
  /** Required unless `builder` is set. */
  credentials?: Credentials;
  inputNames: RemoteBuildInputNames;
  /** Builds the API client; default createBuilderApiClient with the extended assignment limit. */
  makeApi?: MakeBuilderApi;
  clock?: Clock;
  probe?: TlsProbe;
  schedule?: PollSchedule;
  /** Aborted on SIGINT/SIGTERM. */
  signal?: AbortSignal;
  /** Name of the buildx builder to create; default newBuilderName(). */
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
   * Local work (argv checks, the bake definition, …) after `docker buildx version` (its argument), done in
   * the local checks' log group before anything is assigned: a missing buildx or a bad bake file must cost
   * nothing. Runs once, also when the build falls back to a local builder (so its warnings print once).
   */
  prepare: (buildxVersion: string) => Promise<P>;
  /**
   * The build itself, on a ready builder; runs again on a retry. It must use `ctx.signal` (aborted on
   * cancellation and when a builder is lost), call `ctx.reportRun` once its command ran, and throw a
   * BuildCommandError (with the output) when the command fails. After an assignment the builders are torn
   * down when it ends.
   */
  build: (prepared: P, target: BuildTarget, ctx: BuildContext) => Promise<R>;
  /** Extra builds after an infrastructure failure on assigned builders (`retries` input); default 0. */
  retries?: number;
  /**
   * The job summary's record: which action, the builder size from an input when the service says none, and
   * whether a summary is wanted (default: read from DOCKER_BUILD_SUMMARY here).
   */
  report?: {action: 'build-push' | 'bake'; sizeHint?: BuilderSize; summary?: boolean};
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
  // Local checks first: a missing buildx or a bad bake file costs nothing.
  const {more: prepared} = await runLocalChecks(
    {logger: io.logger, buildx: opts.buildx, signal: opts.signal},
    {buildx: opts.buildxCheck ?? {}, more: version => opts.prepare(version as string)}
  );
  const recorder = newRecorder(opts, [credentials.token]);
  const provisioner = new Provisioner({
    apiUrl: opts.apiUrl,
    token: credentials.token,
    state: io.state,
    logger: io.logger,
    buildx: opts.buildx,
    timeoutMs: opts.timeoutMs,
    timeoutName: opts.inputNames.timeout,
    env: io.env,
    certRoot: io.env['RUNNER_TEMP'],
    recorder,
    ...injectedDeps(opts)
  });
  const {lifecycle} = provisioner;
  try {
    let builder: ProvisionedBuilder;
    try {
      builder = await provisioner.provision({profiles: opts.profiles, setupBuildx: true, use: false});
    } catch (explained) {
      const why = opts.fallback === 'local' && !opts.signal?.aborted ? fallbackReason(explained) : undefined;
      if (why === undefined) {
        provisioner.recordFailure(explained);
        throw explained;
      }
      recorder.phase('local fallback');
      try {
        const result = await onLocalFallback(opts, prepared, explained, why, recorder);
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
        api: provisioner.api,
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
          await provisioner.release(`after: ${why}`);
          const left = opts.timeoutMs - timeToReadyMs;
          if (left <= 0) {
            throw new Error(
              `No time is left of "${opts.inputNames.timeout}" (${opts.timeoutMs} ms, spent waiting for builders) to get a new builder: raise it to allow a replacement`
            );
          }
          builder = await provisioner.provision({
            profiles: opts.profiles,
            setupBuildx: true,
            use: false,
            timeoutMs: left
          });
          timeToReadyMs += builder.timeToReadyMs;
          return {ready: builder.ready, target: targetOf(builder, lifecycle.bootstrapOutput)};
        },
        onAttempt: a => recorder.attempt(a),
        onResult: r => recorder.result(r)
      });
      // The build is done and nothing else in the job uses this builder: stop billing now, not at post.
      await provisioner.release('after the build; billing stopped');
      setBuildOutputs(io, opts.outputs, {attempts: done.attempts, timeToReadyMs, cache: done.cache});
      recorder.finish('success');
      return done.result;
    } catch (e) {
      const report = await provisioner.release('after the failure');
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
    provisioner.close();
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
  why: string,
  recorder: RunRecorder
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
    recorder.phase('build');
    try {
      return await opts.build(
        prepared,
        {
          name: local.name,
          inspect,
          nodes: inspect.nodes.map(n => ({builder: local.name, node: n.name, platforms: n.platforms})),
          fallback: why
        },
        singleAttempt(opts.signal, recorder, why)
      );
    } finally {
      // One build ran, on the local builder (no retries there); no remote builder, so no time-to-ready.
      if (opts.outputs) io.setOutput(opts.outputs.attempts, '1');
    }
  } finally {
    await removeLocalFallbackBuilder({buildx: opts.buildx, logger: io.logger, state: io.state});
  }
}

async function onSharedBuilder<P, R>(opts: RemoteBuildOpts<P, R>): Promise<R> {
  const {io, builder, inputNames} = opts;
  const profiles = io.getInput(inputNames.profileName);
  if (profiles !== '') io.logger.warning(builderOverridesProfile(inputNames, builder, profiles));
  const {more: prepared} = await runLocalChecks(
    {logger: io.logger, buildx: opts.buildx, signal: opts.signal},
    {buildx: opts.buildxCheck ?? {}, more: version => opts.prepare(version as string)}
  );
  // Nothing is assigned, so nothing is billed; post still writes the step's one job summary from this record.
  const recorder = newRecorder(opts, []);
  try {
    const result = await buildOnShared(opts, prepared, recorder);
    recorder.finish('success');
    return result;
  } catch (e) {
    recorder.finish(opts.signal?.aborted ? 'cancelled' : 'failure', e);
    throw e;
  }
}

async function buildOnShared<P, R>(opts: RemoteBuildOpts<P, R>, prepared: P, recorder: RunRecorder): Promise<R> {
  const {io, builder, inputNames} = opts;
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
  recorder.phase('build');
  return opts.build(
    prepared,
    {
      name: builder,
      inspect,
      nodes: inspect.nodes.map(n => ({builder, node: n.name, platforms: n.platforms}))
    },
    singleAttempt(opts.signal, recorder)
  );
}

/**
 * The migration trap (issue 15 §7a): a workflow that kept docker's `builder: ${{ steps.buildx.outputs.name }}`
 * next to `profile-name` would build on that local builder without a word. Says which builder is used, that
 * nothing is assigned, and what to remove.
 */
export function builderOverridesProfile(names: RemoteBuildInputNames, builder: string, profiles: string): string {
  return (
    `Both "${names.builder}" and "${names.profileName}" are set: the build runs on builder "${builder}" (the "${names.builder}" input) ` +
    `and NO remote builder is assigned from "${names.profileName}" (${profiles}). If "${builder}" is a local builder ` +
    `(e.g. "${names.builder}: \${{ steps.buildx.outputs.name }}" kept from docker/setup-buildx-action), this build is not remote: ` +
    `remove the "${names.builder}" input to build on a remote builder from "${names.profileName}", or remove "${names.profileName}" to keep building on "${builder}"`
  );
}

/**
 * The one build of a builder this step did not assign (the `builder` input, a local fallback): no watchdog
 * and no retry, since nothing here can check or replace such a builder.
 */
function singleAttempt(signal: AbortSignal | undefined, recorder: RunRecorder, fallback?: string): BuildContext {
  return {
    ...(signal ? {signal} : {}),
    attempt: 1,
    reportRun: f => recorder.built(f.buildMs),
    reportResult: r => recorder.result(fallback !== undefined ? {...r, fallback} : r)
  };
}

/** The job summary's record of this step (see RemoteBuildOpts.report). */
function newRecorder<P, R>(opts: RemoteBuildOpts<P, R>, secrets: string[]): RunRecorder {
  return new RunRecorder({
    action: opts.report?.action ?? 'build-push',
    state: opts.io.state,
    summary: opts.report?.summary ?? buildSummaryEnabled(opts.io),
    secrets,
    ...(opts.report?.sizeHint ? {sizeHint: opts.report.sizeHint} : {})
  });
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

/** Everything runRemoteBuild needs but the action's own `prepare` and `build`. */
export type RemoteBuildSetup = Omit<RemoteBuildOpts<unknown, unknown>, 'prepare' | 'build'>;

/**
 * The runRemoteBuild options of a build action (build-push, bake) from its deps and its parsed provisioning
 * inputs: the same input and output names, report, fallback and retries in both.
 */
export function buildStepSetup(
  deps: StepDeps,
  inputs: BuildStepInputs,
  tools: {action: 'build-push' | 'bake'; buildx: Buildx; exec: Exec; docker: string; summary: boolean}
): RemoteBuildSetup {
  return {
    io: deps.io,
    buildx: tools.buildx,
    // The runner's buildx missing: installing one with buildx-version is the other way out.
    buildxCheck: inputs['buildx-version'].kind === 'runner' ? {alternative: INSTALL_BUILDX_ALTERNATIVE} : {},
    builder: inputs.builder,
    profiles: inputs['profile-name'],
    timeoutMs: inputs.timeout,
    apiUrl: inputs['api-url'],
    ...(inputs.credentials ? {credentials: inputs.credentials} : {}),
    inputNames: {
      builder: BuildStepInput.Builder,
      profileName: BuildStepInput.ProfileName,
      timeout: BuildStepInput.Timeout
    },
    ...injectedDeps(deps),
    fallback: inputs.fallback,
    retries: inputs.retries,
    report: {
      action: tools.action,
      summary: tools.summary,
      ...(inputs['builder-size'] ? {sizeHint: inputs['builder-size']} : {})
    },
    outputs: {
      attempts: BuildStepOutput.Attempts,
      timeToReady: BuildStepOutput.TimeToReady,
      cachedSteps: BuildStepOutput.CachedSteps,
      cacheRatio: BuildStepOutput.CacheRatio
    },
    exec: tools.exec,
    docker: tools.docker
  };
}
