import {
  annotateBuildChecks,
  BuildCommandError,
  BuildStep,
  InputError,
  SecretStore,
  cancellation,
  checkMultiPlatformLoad,
  formatMetadata,
  guardPlatforms,
  lastLine,
  targetSupportsAttestations,
  newerBuildxHint,
  versionAtLeast,
  type ActionIO,
  type BuildContext,
  type BuildResult,
  type BuildTarget,
  type ExecResult,
  type StepDeps
} from '@remote-builder-actions/core/step';
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
 * The build-push action's main step, in order: read and validate every input; open the step (buildx
 * installed, private folder); the local checks (buildx version gates, load, secrets, argv) before anything is
 * assigned; acquire a builder (assigned, or the `builder` input's: nothing assigned); build on it (`docker
 * buildx build --builder <it>`, after the platform guard; the run records it for the job summary post writes,
 * and tears assigned builders down as soon as it ends, fails or is cancelled); set docker's outputs.
 */
export async function buildPush(deps: StepDeps): Promise<BuildPushResult> {
  const inputs = BuildStep.readInputs(deps.io, 'build-push', () => getInputs(deps.io));
  const step = await BuildStep.open(deps, {action: 'build-push', inputs});
  try {
    const prepared = await step.checkLocal(version => checkLocally(step, inputs, version));
    const run = await step.acquire();
    const built = await run.build((target, ctx) => build(step, prepared, target, ctx));
    setOutputs(step.ctx.io, built);
    return built;
  } finally {
    step.close();
  }
}

/** The buildx version gates, secret files and a first argv (which checks docker's buildx version gates). */
async function checkLocally(step: BuildStep, given: Inputs, version: string): Promise<Prepared> {
  const {io, signal, github} = step.ctx;
  // Refused by older buildx: found out before anything is assigned.
  if (given.push && given.load) checkPushAndLoad(version);
  // Several platforms loaded into an engine on the classic image store fail after the assignment.
  if (given.load) {
    await checkMultiPlatformLoad(step.ctx.buildx, [{platforms: given.platforms}], {
      logger: io.logger,
      signal,
      inputs: {load: Input.Load, platforms: Input.Platforms}
    });
  }
  // The builder is known only once it is ready; the argv built here only checks the gates.
  const inputs: Inputs = {...given, builder: given.builder || 'remote-builder'};
  const defaultContext = defaultGitContext(github, version);
  const context = renderContext(inputs, defaultContext);
  const store = new SecretStore({dir: step.files.dir, logger: io.logger});
  const argsEnv: ArgsEnv = {
    buildxVersion: version,
    context,
    defaultContext,
    github,
    secrets: resolveSecrets(inputs, context, defaultContext, store, github, io.logger),
    imageIdFile: step.files.imageIdFile,
    metadataFile: step.files.metadataFile,
    buildkitSupportsAttestations: false,
    env: io.env
  };
  // docker's gate warnings (an input ignored by this buildx), with the way to a newer one.
  for (const w of getArgs(inputs, argsEnv).warnings) io.logger.warning(`${w} ${NEWER_BUILDX}`);
  return {inputs, argsEnv};
}

/** One build on `target` (again on a retry): the platform guard, `docker buildx build`, its result. */
async function build(
  step: BuildStep,
  prepared: Prepared,
  target: BuildTarget,
  ctx: BuildContext
): Promise<BuildPushResult> {
  const {io, buildx} = step.ctx;
  const {signal} = ctx;
  const inputs: Inputs = {...prepared.inputs, builder: target.name};
  guardPlatforms(target, [{who: `Input "${Input.Platforms}"`, platforms: inputs.platforms}], {
    logger: io.logger,
    what: `"${Input.Platforms}"`
  });
  if (inputs.push && inputs.load) checkMultipleExporters(target);

  const {args} = getArgs(inputs, {
    ...prepared.argsEnv,
    buildkitSupportsAttestations: targetSupportsAttestations(target)
  });
  const {res, buildMs} = await step.runBuildx({title: `Building on builder "${target.name}"`, args, signal});
  ctx.reportRun({buildMs, output: `${res.stderr}\n${res.stdout}`});
  if (signal?.aborted || res.killed === 'aborted')
    throw cancellation(signal, 'during the build; the build was stopped');
  if (res.exitCode !== 0) throw buildFailure(res, inputs);

  const result = step.files.read();
  await annotateBuildChecks({io, buildx, action: 'build-push', metadata: result.metadata});
  ctx.reportResult(imageResult(target.name, inputs.tags, result));
  return {...result, builderName: target.name, args: ['buildx', ...args]};
}

/** docker's outputs of a successful build. */
function setOutputs(io: ActionIO, result: BuildResult): void {
  if (result.imageId) {
    io.logger.untrusted(`ImageID: ${result.imageId}`);
    io.setOutput(Output.ImageId, result.imageId);
  }
  if (result.digest) {
    io.logger.untrusted(`Digest: ${result.digest}`);
    io.setOutput(Output.Digest, result.digest);
  }
  if (result.metadata) io.setOutput(Output.Metadata, formatMetadata(result.metadata));
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

/** docker's message for a failed build (with its output, to classify it); `call: check` reports its summary line. */
function buildFailure(res: ExecResult, inputs: Inputs): Error {
  const output = `${res.stderr}\n${res.stdout}`;
  if (inputs.call === 'check' && res.stdout.trim() !== '') {
    return new BuildCommandError(res.stdout.trim().split('\n')[0]?.trim() || 'check failed', output);
  }
  return new BuildCommandError(`buildx failed with: ${lastLine(res)}`, output);
}
