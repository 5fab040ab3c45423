import {
  annotateBuildChecks,
  BuildCommandError,
  InputError,
  SecretStore,
  cancellation,
  checkMultiPlatformLoad,
  formatMetadata,
  lastLine,
  offeredPlatforms,
  platformShortfall,
  runBuildCommand,
  runBuildStep,
  targetSupportsAttestations,
  newerBuildxHint,
  versionAtLeast,
  type ActionIO,
  type BuildContext,
  type BuildResult,
  type BuildStepTools,
  type BuildTarget,
  type ExecResult,
  type StepDeps
} from '@remote-builder-actions/core';
import {defaultGitContext, getArgs, renderContext, resolveSecrets, type ArgsEnv} from './build-args.js';
import {getInputs, Input, Output, type Inputs} from './context.js';
import {imageResult} from './summary.js';

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
 * The build-push action's main step: validate every input, do the local work (buildx version, secrets,
 * argv) before anything is assigned, assign and wait, check the builder's platforms, run
 * `docker buildx build --builder <ours>`, set docker's outputs and record what it built for the job summary
 * (post writes it). With the `builder`
 * input nothing is assigned: the build runs on that builder. After an assignment, any failure or
 * cancellation tears the builders down before main ends.
 */
export async function buildPush(deps: StepDeps): Promise<BuildPushResult> {
  const inputs = getInputs(deps.io);
  return runBuildStep(deps, {
    action: 'build-push',
    inputs,
    prepare: (tools, version) => prepare({...tools, deps, inputs}, version),
    build: (tools, prepared, target, ctx) => build({...tools, deps, inputs}, prepared, target, ctx)
  });
}

/** What the build's own work runs with. */
interface Step extends BuildStepTools {
  deps: StepDeps;
  inputs: Inputs;
}

/** The buildx version gates, secret files and a first argv (which checks docker's buildx version gates). */
async function prepare(step: Step, version: string): Promise<Prepared> {
  const {io} = step.deps;
  // Refused by older buildx: found out before anything is assigned.
  if (step.inputs.push && step.inputs.load) checkPushAndLoad(version);
  // Several platforms loaded into an engine on the classic image store fail after the assignment.
  if (step.inputs.load) {
    await checkMultiPlatformLoad(step.buildx, [{platforms: step.inputs.platforms}], {
      logger: io.logger,
      ...(step.deps.signal ? {signal: step.deps.signal} : {}),
      inputs: {load: Input.Load, platforms: Input.Platforms}
    });
  }
  // The builder is known only once it is ready; the argv built here only checks the gates.
  const inputs: Inputs = {...step.inputs, builder: step.inputs.builder || 'remote-builder'};
  const defaultContext = defaultGitContext(step.github, version);
  const context = renderContext(inputs, defaultContext);
  const store = new SecretStore({dir: step.files.dir, logger: io.logger});
  const argsEnv: ArgsEnv = {
    buildxVersion: version,
    context,
    defaultContext,
    github: step.github,
    secrets: resolveSecrets(inputs, context, defaultContext, store, step.github, io.logger),
    imageIdFile: step.files.imageIdFile,
    metadataFile: step.files.metadataFile,
    buildkitSupportsAttestations: false,
    env: io.env
  };
  // docker's gate warnings (an input ignored by this buildx), with the way to a newer one.
  for (const w of getArgs(inputs, argsEnv).warnings) io.logger.warning(`${w} ${NEWER_BUILDX}`);
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
    buildkitSupportsAttestations: targetSupportsAttestations(target)
  });
  const {res, buildMs} = await runBuildCommand(step, io, {
    title: `Building on builder "${target.name}"`,
    args,
    ...(signal ? {signal} : {})
  });
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
  await annotateBuildChecks({io, buildx: step.buildx, action: 'build-push', metadata: result.metadata});

  ctx.reportResult(imageResult(target.name, inputs.tags, result));
  return {...result, builderName: target.name, args: ['buildx', ...args]};
}

/** Appended to docker's gate warnings. */
const NEWER_BUILDX = `Fix: ${newerBuildxHint()}.`;

/** buildx >= 0.13.0 exports to the registry and to docker at once (docker/buildx#2302); older buildx refuses. */
const PUSH_AND_LOAD_BUILDX = '0.13.0';

/** `push` with `load`: buildx must be recent enough, checked before anything is assigned. */
function checkPushAndLoad(version: string): void {
  if (!versionAtLeast(version, PUSH_AND_LOAD_BUILDX)) {
    throw new InputError(
      Input.Load,
      `"${Input.Push}" and "${Input.Load}" together need buildx >= ${PUSH_AND_LOAD_BUILDX} (found ${version}), which refuses them with "push and load may not be set together": update buildx on the runner, ${newerBuildxHint(PUSH_AND_LOAD_BUILDX)}, or set only one of them`
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
