import {randomBytes} from 'node:crypto';
import {
  ApiClient,
  BuildFiles,
  Buildx,
  BuilderLifecycle,
  BuilderTimeoutError,
  CancelledError,
  GitHubContext,
  NodeExec,
  SecretStore,
  abortReason,
  errorMessage,
  formatMetadata,
  lastLine,
  missingArchitectures,
  offeredArchitectures,
  parseBuilderInspect,
  systemClock,
  unionPlatforms,
  type ActionIO,
  type BuilderApi,
  type BuildResult,
  type Clock,
  type Exec,
  type ExecResult,
  type InspectedBuilder,
  type PollSchedule,
  type ProvisionedBuilder,
  type TlsProbe
} from '@remote-builder-actions/core';
import {buildkitSupportsAttestations, getArgs, renderContext, resolveSecrets, type ArgsEnv} from './build-args.js';
import {getInputs, Input, Output, State, type Inputs} from './context.js';
import {buildSummary, summaryEnabled, type SummaryNode} from './summary.js';

export interface BuildPushDeps {
  io: ActionIO;
  /** Builds the API client; default ApiClient. */
  makeApi?: (apiUrl: string, token: string) => BuilderApi & {close(): void};
  /** Runs docker; default NodeExec. */
  exec?: Exec;
  /** The docker CLI; default `docker`. */
  docker?: string;
  clock?: Clock;
  probe?: TlsProbe;
  schedule?: PollSchedule;
  /** Aborted on SIGINT/SIGTERM. */
  signal?: AbortSignal;
  /** Name of the buildx builder to create; default `remote-builder-<random>`. */
  builderName?: string;
}

export interface BuildPushResult extends BuildResult {
  /** The buildx builder the build ran on. */
  builderName: string;
  /** `docker buildx` argv of the build. */
  args: string[];
}

/** Local work done while the assignment is pending. */
interface Prepared {
  /** Inputs with `builder` set to the builder the build runs on. */
  inputs: Inputs;
  argsEnv: ArgsEnv;
}

/** Where the build runs. */
interface Target {
  name: string;
  nodes: SummaryNode[];
  inspect: InspectedBuilder;
  profile?: string;
  timeToReadyMs?: number;
}

/** Time allowed for tearing down in main after a cancellation: the runner kills the step 10 s after SIGINT. */
const CANCEL_TEARDOWN_MS = 5000;

/**
 * The build-push action's main step: validate every input, start the assignment, do the local work
 * (buildx version, secrets, argv) while it is pending, check the builder's platforms, run
 * `docker buildx build --builder <ours>`, set docker's outputs and our job summary. With the `builder`
 * input nothing is assigned: the build runs on that builder. After an assignment, any failure or
 * cancellation tears the builders down before main ends.
 */
export async function buildPush(deps: BuildPushDeps): Promise<BuildPushResult> {
  const {io} = deps;
  const inputs = getInputs(io);
  if (inputs.credentials) io.logger.setSecret(inputs.credentials.token);
  if (inputs['github-token']) io.logger.setSecret(inputs['github-token']);
  const github = new GitHubContext(io.env);
  const exec = deps.exec ?? new NodeExec({logger: io.logger});
  const docker = deps.docker ?? 'docker';
  const buildx = new Buildx({logger: io.logger, exec, docker});
  const files = BuildFiles.create(io.env['RUNNER_TEMP'], 'build-push-');
  io.state.save(State.TmpDir, files.dir);
  const step: Step = {deps, inputs, github, exec, docker, buildx, files, clock: deps.clock ?? systemClock};
  try {
    return inputs.builder !== '' ? await onSharedBuilder(step) : await onAssignedBuilder(step);
  } finally {
    // The secret files go with it.
    files.remove();
  }
}

interface Step {
  deps: BuildPushDeps;
  inputs: Inputs;
  github: GitHubContext;
  exec: Exec;
  docker: string;
  buildx: Buildx;
  files: BuildFiles;
  clock: Clock;
}

async function onAssignedBuilder(step: Step): Promise<BuildPushResult> {
  const {deps, inputs} = step;
  const {io} = deps;
  const credentials = inputs.credentials as NonNullable<Inputs['credentials']>;
  const api = (deps.makeApi ?? defaultApi)(inputs['api-url'], credentials.token);
  const builderName = deps.builderName ?? `remote-builder-${randomBytes(4).toString('hex')}`;
  try {
    const lifecycle = new BuilderLifecycle({
      api,
      apiUrl: inputs['api-url'],
      state: io.state,
      logger: io.logger,
      buildx: step.buildx,
      certRoot: io.env['RUNNER_TEMP'],
      builderName,
      ...(deps.clock ? {clock: deps.clock} : {}),
      ...(deps.probe ? {probe: deps.probe} : {}),
      ...(deps.schedule ? {schedule: deps.schedule} : {})
    });
    // The assignment starts first: the builder boots while the local work below runs.
    const stop = new AbortController();
    const provisioning = lifecycle.provision({
      profiles: inputs['profile-name'],
      timeoutMs: inputs.timeout,
      setupBuildx: true,
      use: false,
      signal: deps.signal ? AbortSignal.any([deps.signal, stop.signal]) : stop.signal
    });
    provisioning.catch(() => undefined);

    let prepared: Prepared;
    try {
      prepared = await prepare(step, builderName);
    } catch (e) {
      stop.abort(new CancelledError(`Stopped (${errorMessage(e)})`));
      await provisioning.catch(() => undefined);
      await tearDownNow(lifecycle, io, deps.signal, 'after the failure');
      throw deps.signal?.aborted ? cancelled(deps.signal, 'while preparing the build') : e;
    }

    let builder: ProvisionedBuilder;
    try {
      builder = await provisioning;
    } catch (e) {
      throw explainProvisionError(e, inputs);
    }

    let result: BuildPushResult;
    try {
      const inspect = parseBuilderInspect(lifecycle.bootstrapOutput ?? '');
      const target: Target = {
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
      result = await build(step, prepared, target);
    } catch (e) {
      await tearDownNow(lifecycle, io, deps.signal, 'after the failure');
      throw e;
    }
    // The build is done and nothing else in the job uses this builder: stop billing now, not at post.
    await tearDownNow(lifecycle, io, deps.signal, 'after the build; billing stopped');
    return result;
  } finally {
    api.close();
  }
}

async function onSharedBuilder(step: Step): Promise<BuildPushResult> {
  const {deps, inputs} = step;
  const {io} = deps;
  if (io.getInput(Input.ProfileName) !== '') {
    io.logger.info(
      `Input "${Input.Builder}" is set: building on "${inputs.builder}"; "${Input.ProfileName}" is not used`
    );
  }
  const prepared = await prepare(step, inputs.builder);
  const output = await io.logger.group(`Builder "${inputs.builder}"`, async () => {
    try {
      return await step.buildx.bootstrap(inputs.builder, {signal: deps.signal, timeoutMs: 120000});
    } catch (e) {
      if (deps.signal?.aborted) throw cancelled(deps.signal, 'while inspecting the builder');
      throw new Error(
        `Input "${Input.Builder}": ${errorMessage(e)}. Create the builder in an earlier step (e.g. with the configure action) or leave "${Input.Builder}" empty to assign one from "${Input.ProfileName}"`,
        {cause: e}
      );
    }
  });
  const inspect = parseBuilderInspect(output);
  return build(step, prepared, {
    name: inputs.builder,
    inspect,
    nodes: inspect.nodes.map(n => ({builder: inputs.builder, node: n.name, platforms: n.platforms}))
  });
}

/** buildx version, secret files and a first argv (which checks docker's buildx version gates). */
async function prepare(step: Step, builderName: string): Promise<Prepared> {
  const {io, signal} = step.deps;
  let version: string;
  try {
    version = await step.buildx.version({signal});
  } catch (e) {
    throw new Error(
      `Docker buildx is required (${errorMessage(e)}): run on a runner with the Docker CLI and buildx, or set them up with docker/setup-buildx-action`,
      {cause: e}
    );
  }
  io.logger.info(`docker buildx ${version}`);
  const inputs: Inputs = {...step.inputs, builder: builderName};
  const context = renderContext(inputs, step.github);
  const store = new SecretStore({dir: step.files.dir, logger: io.logger});
  const argsEnv: ArgsEnv = {
    buildxVersion: version,
    context,
    github: step.github,
    secrets: resolveSecrets(inputs, context, store, step.github, io.logger),
    imageIdFile: step.files.imageIdFile,
    metadataFile: step.files.metadataFile,
    buildkitSupportsAttestations: false,
    env: io.env
  };
  for (const w of getArgs(inputs, argsEnv).warnings) io.logger.warning(w);
  return {inputs, argsEnv};
}

async function build(step: Step, prepared: Prepared, target: Target): Promise<BuildPushResult> {
  const {io, signal} = step.deps;
  const {inputs} = prepared;
  checkPlatforms(io, inputs, target);

  const {args} = getArgs(inputs, {
    ...prepared.argsEnv,
    buildkitSupportsAttestations:
      target.inspect.nodes.length > 0 && buildkitSupportsAttestations(target.inspect.nodes, target.inspect.driver)
  });
  // Only paths reach the argv: secret values stay in their files.
  io.logger.info(`[command]${step.docker} buildx ${args.join(' ')}`);
  const started = step.clock.now();
  const res = await step.exec.run(step.docker, ['buildx', ...args], {
    env: {BUILDX_METADATA_WARNINGS: 'true'},
    ...(signal ? {signal} : {})
  });
  const buildMs = step.clock.now() - started;
  if (signal?.aborted || res.killed === 'aborted') throw cancelled(signal, 'during the build; the build was stopped');
  if (res.exitCode !== 0) throw buildFailure(res, inputs);

  const result = step.files.read();
  if (result.imageId) {
    io.logger.info(`ImageID: ${result.imageId}`);
    io.setOutput(Output.ImageId, result.imageId);
  }
  if (result.digest) {
    io.logger.info(`Digest: ${result.digest}`);
    io.setOutput(Output.Digest, result.digest);
  }
  if (result.metadata) io.setOutput(Output.Metadata, formatMetadata(result.metadata));

  if (summaryEnabled(io)) {
    await io
      .writeSummary(
        buildSummary({
          ...(target.profile !== undefined ? {profile: target.profile} : {}),
          builderName: target.name,
          nodes: target.nodes,
          ...(target.timeToReadyMs !== undefined ? {timeToReadyMs: target.timeToReadyMs} : {}),
          buildMs,
          tags: inputs.tags,
          ...(result.digest ? {digest: result.digest} : {}),
          ...(result.imageId ? {imageId: result.imageId} : {})
        })
      )
      .catch(e => io.logger.warning(`Failed to write the job summary: ${errorMessage(e)}`));
  } else {
    io.logger.debug('build-push: DOCKER_BUILD_SUMMARY is false; no job summary');
  }
  return {...result, builderName: target.name, args: ['buildx', ...args]};
}

/** Fails before building when `platforms` asks for an architecture no node offers (spec §1 rule 4, §7). */
function checkPlatforms(io: ActionIO, inputs: Inputs, target: Target): void {
  if (inputs.platforms.length === 0) return;
  const offered = unionPlatforms(target.nodes.map(n => n.platforms));
  if (offered.length === 0) {
    io.logger.debug(`build-push: platform check skipped: builder "${target.name}" reports no node platforms`);
    return;
  }
  const missing = missingArchitectures(inputs.platforms, offered);
  if (missing.length === 0) return;
  const has = [...offeredArchitectures(offered)].join(', ');
  const fix =
    target.profile !== undefined
      ? `enable ${missing.join(' and ')} on builder profile "${target.profile}" in the web UI`
      : `use a builder with a ${missing.join(' and ')} node (e.g. made by the configure action from a profile with ${missing.join(' and ')} enabled)`;
  throw new Error(
    `Input "${Input.Platforms}" asks for ${missing.join(', ')}, but no node of builder "${target.name}" offers it (it has ${has}); the build would fail with "exec format error". Fix: ${fix}, or remove it from "${Input.Platforms}"`
  );
}

/** docker's message for a failed build; `call: check` reports its summary line from stdout. */
function buildFailure(res: ExecResult, inputs: Inputs): Error {
  if (inputs.call === 'check' && res.stdout.trim() !== '') {
    return new Error(res.stdout.trim().split('\n')[0]?.trim() || 'check failed');
  }
  return new Error(`buildx failed with: ${lastLine(res)}`);
}

function cancelled(signal: AbortSignal | undefined, phase: string): CancelledError {
  const why = signal?.aborted ? abortReason(signal).message : 'Cancelled';
  return new CancelledError(`${why} ${phase}`);
}

/** Tears every assigned builder down now and removes the buildx builder; what fails is left to post. */
async function tearDownNow(
  lifecycle: BuilderLifecycle,
  io: ActionIO,
  signal: AbortSignal | undefined,
  why: string
): Promise<void> {
  const report = await lifecycle.release(
    signal?.aborted ? {teardownTimeoutMs: CANCEL_TEARDOWN_MS, rmTimeoutMs: CANCEL_TEARDOWN_MS} : {}
  );
  const done = [...report.tornDown, ...report.alreadyGone];
  if (done.length > 0) io.logger.info(`Tore down ${done.join(', ')} ${why}`);
}

function explainProvisionError(e: unknown, inputs: Inputs): unknown {
  if (e instanceof BuilderTimeoutError) {
    return new Error(
      `${e.message}. Timed out after ${inputs.timeout} ms: raise the "${Input.Timeout}" input if the profile needs longer to start`,
      {cause: e}
    );
  }
  return e;
}

function defaultApi(apiUrl: string, token: string): ApiClient {
  return new ApiClient({baseUrl: apiUrl, token});
}
