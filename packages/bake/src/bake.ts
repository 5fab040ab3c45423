import {
  annotateBuildChecks,
  BuildCommandError,
  BuildStep,
  bakeLoadedBuilds,
  cancellation,
  checkMultiPlatformLoad,
  errorMessage,
  formatMetadata,
  guardPlatforms,
  lastLine,
  newerBuildxHint,
  parseBakeDefinition,
  targetPlatforms,
  targetSupportsAttestations,
  type BakeDefinition,
  type BuildContext,
  type BuildMetadata,
  type BuildTarget,
  type Logger,
  type StepDeps
} from '@remote-builder-actions/core/step';
import {targetResults} from './summary.js';
import {getArgs, getPrintArgs, gitAuthToken, type ArgsEnv} from './bake-args.js';
import {getInputs, Input, inputWarnings, Output, type Inputs} from './context.js';

export interface BakeResult {
  /** The --metadata-file: one entry per target. */
  metadata?: BuildMetadata;
  /** The definition the bake built. */
  definition: BakeDefinition;
  /** The buildx builder the bake ran on. */
  builderName: string;
  /** `docker buildx` argv of the bake. */
  args: string[];
}

/** Local work done before anything is assigned. */
interface Prepared {
  /** Inputs with `builder` set to the builder the bake runs on (a placeholder until the bake). */
  inputs: Inputs;
  argsEnv: ArgsEnv;
  /** The definition as `--print` printed it. */
  printed: string;
}

/** What the bake's own work runs with. */
interface Step {
  step: BuildStep;
  inputs: Inputs;
  /** BUILDX_BAKE_GIT_AUTH_TOKEN for both bake calls; '' for none. */
  token: string;
}

/**
 * The bake action's main step, in order: read and validate every input; open the step (buildx installed,
 * private folder); the local checks (buildx version gates, `buildx bake --print` to resolve the definition)
 * before anything is assigned; acquire a builder (assigned, or the `builder` input's: nothing assigned);
 * bake on it (`docker buildx bake --builder <it>`, after the platform guard of every target; the run records
 * each target's digest for the job summary post writes, and tears assigned builders down as soon as the bake
 * ends, fails or is cancelled). docker's `metadata` output is set by the bake itself: also when it fails.
 */
export async function bake(deps: StepDeps): Promise<BakeResult> {
  const inputs = BuildStep.readInputs(deps.io, 'bake', () => getInputs(deps.io));
  for (const w of inputWarnings(deps.io, inputs)) deps.io.logger.warning(w);
  const token = gitAuthToken(inputs, deps.io.env);
  const step = await BuildStep.open(deps, {action: 'bake', inputs, secrets: [token]});
  const s: Step = {step, inputs, token};
  try {
    const prepared = await step.checkLocal(version => checkLocally(s, version));
    const run = await step.acquire();
    return await run.build((target, ctx) => build(s, prepared, target, ctx));
  } finally {
    step.close();
  }
}

/**
 * Time limit of `buildx bake --print`. It reads local files, or a remote Git or HTTP definition, so a minute
 * only runs out when something hangs (a remote that never answers, a credential prompt); it runs before
 * anything is assigned, so nothing is billed meanwhile.
 */
export const PRINT_TIMEOUT_MS = 120_000;

/** buildx version, docker's version gates, and the definition from `buildx bake --print`. */
async function checkLocally(s: Step, version: string): Promise<Prepared> {
  const {io, signal, github, buildx} = s.step.ctx;
  // The builder is known only once it is ready; the argv built here only checks the gates.
  const inputs: Inputs = {...s.inputs, builder: s.inputs.builder || 'remote-builder'};
  const argsEnv: ArgsEnv = {
    buildxVersion: version,
    definition: {target: {}},
    metadataFile: s.step.files.metadataFile,
    github,
    buildkitSupportsAttestations: false,
    env: io.env
  };
  // The gates fail before the definition is resolved.
  // docker's gate warnings (an input ignored by this buildx), with the way to a newer one.
  for (const w of getArgs(inputs, argsEnv).warnings) io.logger.warning(`${w} Fix: ${newerBuildxHint()}.`);
  // The definition is shown in its own group just before the bake.
  const {definition, printed} = await resolveDefinition(s, argsEnv);
  // docker's "Bake definition" in the job summary: post reads it from the step's private folder.
  s.step.saveBakeDefinition(printed);
  // Targets that load several platforms into an engine on the classic image store fail after the assignment.
  await checkMultiPlatformLoad(buildx, bakeLoadedBuilds(definition, inputs.load), {
    logger: io.logger,
    signal,
    inputs: {load: Input.Load, platforms: Input.Set},
    onePlatform: `the target's "platforms" in the bake file, or "${Input.Set}": <target>.platform=linux/amd64`
  });
  return {inputs, argsEnv: {...argsEnv, definition}, printed};
}

/** `docker buildx bake … --print`, with the same files, targets, set, source and workdir as the bake. */
async function resolveDefinition(
  s: Step,
  env: Pick<ArgsEnv, 'github' | 'buildxVersion'>
): Promise<{definition: BakeDefinition; printed: string}> {
  const {io, signal, exec, docker} = s.step.ctx;
  const args = ['buildx', ...getPrintArgs(s.inputs, env)];
  io.logger.info(`Resolving the bake definition: docker ${args.join(' ')}`);
  const res = await exec.run(docker, args, {
    silent: true,
    cwd: s.inputs.source.workdir,
    timeoutMs: PRINT_TIMEOUT_MS,
    env: tokenEnv(s.token),
    signal
  });
  if (signal?.aborted || res.killed === 'aborted') throw cancellation(signal, 'while resolving the bake definition');
  if (res.killed === 'timeout') {
    throw new Error(
      `Resolving the bake definition (docker ${args.join(' ')}) did not finish within ${PRINT_TIMEOUT_MS / 1000} s: check that "${Input.Source}" and "${Input.Files}" can be read from this runner (a remote definition needs network access and, for a private repository, "${Input.GithubToken}"); nothing was assigned`
    );
  }
  if (res.exitCode !== 0) {
    throw new Error(
      `Failed to resolve the bake definition (docker ${args.join(' ')}): ${lastLine(res)}. Check "${Input.Files}", "${Input.Targets}", "${Input.Set}", "${Input.Source}" and "${Input.Workdir}"`
    );
  }
  let definition: BakeDefinition;
  try {
    definition = parseBakeDefinition(res.stdout.trim());
  } catch (e) {
    throw new Error(`Failed to read the bake definition printed by docker buildx bake --print: ${errorMessage(e)}`, {
      cause: e
    });
  }
  const names = Object.keys(definition.target);
  if (names.length === 0) throw new Error('The bake definition has no target: there is nothing to build');
  return {definition, printed: res.stdout.trim()};
}

/** One bake on `target` (again on a retry): the platform guard, `docker buildx bake`, its metadata. */
async function build(s: Step, prepared: Prepared, target: BuildTarget, ctx: BuildContext): Promise<BakeResult> {
  const {io, buildx} = s.step.ctx;
  const {signal} = ctx;
  const {argsEnv} = prepared;
  const inputs: Inputs = {...prepared.inputs, builder: target.name};
  await io.logger.group('Bake definition', async () => io.logger.untrusted(prepared.printed));
  checkPlatforms(io.logger, argsEnv.definition, target);

  const {args} = getArgs(inputs, {...argsEnv, buildkitSupportsAttestations: targetSupportsAttestations(target)});
  const {res, buildMs} = await s.step.runBuildx({
    title: `Baking on builder "${target.name}"`,
    args,
    cwd: inputs.source.workdir,
    env: tokenEnv(s.token),
    signal
  });
  ctx.reportRun({buildMs, output: `${res.stderr}\n${res.stdout}`, targets: Object.keys(argsEnv.definition.target)});
  if (signal?.aborted || res.killed === 'aborted') throw cancellation(signal, 'during the bake; the bake was stopped');

  // docker sets `metadata` from the metadata file before it reports a failed bake.
  const {metadata} = s.step.files.read();
  if (metadata) {
    await io.logger.group('Metadata', async () => {
      const text = formatMetadata(metadata);
      io.logger.untrusted(text);
      io.setOutput(Output.Metadata, text);
    });
  }
  await annotateBuildChecks({io, buildx, action: 'bake', metadata});
  if (res.exitCode !== 0) {
    throw new BuildCommandError(`buildx bake failed with: ${lastLine(res)}`, `${res.stderr}\n${res.stdout}`);
  }

  ctx.reportResult({builder: target.name, targets: targetResults(argsEnv.definition, metadata)});
  return {
    metadata,
    definition: argsEnv.definition,
    builderName: target.name,
    args: ['buildx', ...args]
  };
}

/** BUILDX_BAKE_GIT_AUTH_TOKEN for the bake calls; none without a token. */
function tokenEnv(token: string): Record<string, string> | undefined {
  return token ? {BUILDX_BAKE_GIT_AUTH_TOKEN: token} : undefined;
}

/**
 * The platform guard for every target of the definition (the bake would fail with "exec format error"),
 * naming each short target and how to leave the architectures out (the bake file, or `set`).
 */
function checkPlatforms(logger: Logger, definition: BakeDefinition, target: BuildTarget): void {
  const requests = Object.entries(definition.target).map(([name, t]) => ({
    who: `Bake target "${name}"`,
    name,
    platforms: targetPlatforms(t)
  }));
  const nameOf = new Map(requests.map(r => [r.who, r.name]));
  guardPlatforms(target, requests, {
    logger,
    what: "the targets' platforms",
    drop: (short, missing) => {
      const keep = short.filter(r => r.kept.length > 0).map(r => `"${nameOf.get(r.who)}.platform=${r.kept.join(',')}"`);
      const whose = short.length === 1 ? "the target's platforms" : "those targets' platforms";
      return `drop ${missing.join(' and ')} from ${whose} (in the bake file${keep.length > 0 ? `, or with the "${Input.Set}" input, e.g. ${keep.join(', ')}` : ''})`;
    }
  });
}
