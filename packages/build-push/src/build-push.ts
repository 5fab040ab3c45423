import {
  BuildCommandError,
  BuildFiles,
  Buildx,
  GitHubContext,
  InputError,
  NodeExec,
  SecretStore,
  buildkitSupportsAttestations,
  buildSummaryEnabled,
  cancellation,
  errorMessage,
  formatMetadata,
  lastLine,
  offeredPlatforms,
  platformShortfall,
  requireBuildx,
  runRemoteBuild,
  systemClock,
  versionAtLeast,
  type ActionIO,
  type BuilderApi,
  type BuildContext,
  type BuildResult,
  type BuildTarget,
  type Clock,
  type Exec,
  type ExecResult,
  type PollSchedule,
  type TlsProbe
} from '@remote-builder-actions/core';
import {getArgs, renderContext, resolveSecrets, type ArgsEnv} from './build-args.js';
import {getInputs, Input, Output, State, type Inputs} from './context.js';
import {buildSummary} from './summary.js';

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

/** Local work done before anything is assigned. */
interface Prepared {
  /** Inputs with `builder` set to the builder the build runs on (a placeholder until the build). */
  inputs: Inputs;
  argsEnv: ArgsEnv;
}

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
    // Refused by older buildx: found out before anything is assigned.
    if (inputs.push && inputs.load) await checkPushAndLoad(step);
    return await runRemoteBuild({
      io,
      buildx,
      builder: inputs.builder,
      profiles: inputs['profile-name'],
      timeoutMs: inputs.timeout,
      apiUrl: inputs['api-url'],
      ...(inputs.credentials ? {credentials: inputs.credentials} : {}),
      inputNames: {builder: Input.Builder, profileName: Input.ProfileName, timeout: Input.Timeout},
      ...(deps.makeApi ? {makeApi: deps.makeApi} : {}),
      ...(deps.clock ? {clock: deps.clock} : {}),
      ...(deps.probe ? {probe: deps.probe} : {}),
      ...(deps.schedule ? {schedule: deps.schedule} : {}),
      ...(deps.signal ? {signal: deps.signal} : {}),
      ...(deps.builderName ? {builderName: deps.builderName} : {}),
      fallback: inputs.fallback,
      retries: inputs.retries,
      report: {action: 'build-push', ...(inputs['builder-size'] ? {sizeHint: inputs['builder-size']} : {})},
      outputs: {
        attempts: Output.Attempts,
        timeToReady: Output.TimeToReady,
        cachedSteps: Output.CachedSteps,
        cacheRatio: Output.CacheRatio
      },
      exec,
      docker,
      prepare: () => prepare(step),
      build: (prepared, target, ctx) => build(step, prepared, target, ctx)
    });
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

/** buildx version, secret files and a first argv (which checks docker's buildx version gates). */
async function prepare(step: Step): Promise<Prepared> {
  const {io, signal} = step.deps;
  const version = await requireBuildx(step.buildx, io, signal);
  // The builder is known only once it is ready; the argv built here only checks the gates.
  const inputs: Inputs = {...step.inputs, builder: step.inputs.builder || 'remote-builder'};
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

async function build(step: Step, prepared: Prepared, target: BuildTarget, ctx: BuildContext): Promise<BuildPushResult> {
  const {io} = step.deps;
  const {signal} = ctx;
  const inputs: Inputs = {...prepared.inputs, builder: target.name};
  checkPlatforms(io, inputs, target);
  if (inputs.push && inputs.load) checkMultipleExporters(target);

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
  ctx.reportRun({buildMs, output: `${res.stderr}\n${res.stdout}`});
  if (signal?.aborted || res.killed === 'aborted')
    throw cancellation(signal, 'during the build; the build was stopped');
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

  if (buildSummaryEnabled(io)) {
    await io
      .writeSummary(
        buildSummary({
          ...(target.profile !== undefined ? {profile: target.profile} : {}),
          ...(target.fallback !== undefined ? {fallback: target.fallback} : {}),
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

/** buildx >= 0.13.0 exports to the registry and to docker at once (docker/buildx#2302); older buildx refuses. */
const PUSH_AND_LOAD_BUILDX = '0.13.0';

/** `push` with `load`: buildx must be recent enough, checked before anything is assigned. */
async function checkPushAndLoad(step: Step): Promise<void> {
  const version = await requireBuildx(step.buildx, step.deps.io, step.deps.signal);
  if (!versionAtLeast(version, PUSH_AND_LOAD_BUILDX)) {
    throw new InputError(
      Input.Load,
      `"${Input.Push}" and "${Input.Load}" together need buildx >= ${PUSH_AND_LOAD_BUILDX} (found ${version}), which refuses them with "push and load may not be set together": update buildx on the runner (docker/setup-buildx-action), or set only one of them`
    );
  }
}

/** Two exporters (registry and docker) need BuildKit >= 0.13 on every node; fails before building when a node reports less. */
function checkMultipleExporters(target: BuildTarget): void {
  const old = target.inspect.nodes.filter(n => n.buildkit && !versionAtLeast(n.buildkit.replace(/^v/, ''), '0.13.0'));
  if (old.length === 0) return;
  throw new Error(
    `"${Input.Push}" and "${Input.Load}" together need BuildKit >= 0.13 on the builder (two exporters), but node ${old.map(n => `${n.name} runs ${n.buildkit}`).join(', ')}: set only one of them, or push and then pull the image`
  );
}

/** Fails before building when `platforms` asks for an architecture no node offers (spec §1 rule 4, §7). */
function checkPlatforms(io: ActionIO, inputs: Inputs, target: BuildTarget): void {
  if (inputs.platforms.length === 0) return;
  if (offeredPlatforms(target).length === 0) {
    io.logger.debug(`build-push: platform check skipped: builder "${target.name}" reports no node platforms`);
    return;
  }
  const short = platformShortfall(target, inputs.platforms);
  if (!short) return;
  throw new Error(
    `Input "${Input.Platforms}" asks for ${short.missing.join(', ')}, but no node of builder "${target.name}" offers it (it has ${short.has}); the build would fail with "exec format error". Fix: ${short.fix}, or remove it from "${Input.Platforms}"`
  );
}

/** docker's message for a failed build (with its output, to classify it); `call: check` reports its summary line. */
function buildFailure(res: ExecResult, inputs: Inputs): Error {
  const output = `${res.stderr}\n${res.stdout}`;
  if (inputs.call === 'check' && res.stdout.trim() !== '') {
    return new BuildCommandError(res.stdout.trim().split('\n')[0]?.trim() || 'check failed', output);
  }
  return new BuildCommandError(`buildx failed with: ${lastLine(res)}`, output);
}
