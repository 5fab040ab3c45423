import {
  annotateBuildChecks,
  BuildCommandError,
  bakeLoadedBuilds,
  cancellation,
  checkMultiPlatformLoad,
  errorMessage,
  formatMetadata,
  lastLine,
  newerBuildxHint,
  offeredPlatforms,
  parseBakeDefinition,
  platformShortfall,
  runBuildCommand,
  runBuildStep,
  targetPlatforms,
  targetSupportsAttestations,
  type ActionIO,
  type BakeDefinition,
  type BuildContext,
  type BuildMetadata,
  type BuildStepTools,
  type BuildTarget,
  type StepDeps
} from '@remote-builder-actions/core';
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
interface Step extends BuildStepTools {
  deps: StepDeps;
  inputs: Inputs;
  /** BUILDX_BAKE_GIT_AUTH_TOKEN for both bake calls; '' for none. */
  token: string;
}

/**
 * The bake action's main step: validate every input, do the local work (buildx version, `buildx bake
 * --print` to resolve the definition) before anything is assigned, assign and wait, check every target's
 * platforms against the builder's nodes, run `docker buildx bake --builder <ours>`, set docker's `metadata`
 * output and record each target's digest for the job summary (post writes it). With the `builder` input nothing is assigned. After an assignment, the
 * builders are torn down as soon as the bake ends, fails or is cancelled.
 */
export async function bake(deps: StepDeps): Promise<BakeResult> {
  const inputs = getInputs(deps.io);
  for (const w of inputWarnings(deps.io, inputs)) deps.io.logger.warning(w);
  const token = gitAuthToken(inputs, deps.io.env);
  return runBuildStep(deps, {
    action: 'bake',
    inputs,
    secrets: [token],
    prepare: (tools, version) => prepare({...tools, deps, inputs, token}, version),
    build: (tools, prepared, target, ctx) => build({...tools, deps, inputs, token}, prepared, target, ctx)
  });
}

/**
 * Time limit of `buildx bake --print`. It reads local files, or a remote Git or HTTP definition, so a minute
 * only runs out when something hangs (a remote that never answers, a credential prompt); it runs before
 * anything is assigned, so nothing is billed meanwhile.
 */
export const PRINT_TIMEOUT_MS = 120_000;

/** buildx version, docker's version gates, and the definition from `buildx bake --print`. */
async function prepare(step: Step, version: string): Promise<Prepared> {
  const {io} = step.deps;
  // The builder is known only once it is ready; the argv built here only checks the gates.
  const inputs: Inputs = {...step.inputs, builder: step.inputs.builder || 'remote-builder'};
  const argsEnv: ArgsEnv = {
    buildxVersion: version,
    definition: {target: {}},
    metadataFile: step.files.metadataFile,
    github: step.github,
    buildkitSupportsAttestations: false,
    env: io.env
  };
  // The gates fail before the definition is resolved.
  // docker's gate warnings (an input ignored by this buildx), with the way to a newer one.
  for (const w of getArgs(inputs, argsEnv).warnings) io.logger.warning(`${w} Fix: ${newerBuildxHint()}.`);
  // The definition is shown in its own group just before the bake.
  const {definition, printed} = await resolveDefinition(step, argsEnv);
  // Targets that load several platforms into an engine on the classic image store fail after the assignment.
  await checkMultiPlatformLoad(step.buildx, bakeLoadedBuilds(definition, inputs.load), {
    logger: io.logger,
    ...(step.deps.signal ? {signal: step.deps.signal} : {}),
    inputs: {load: Input.Load, platforms: Input.Set},
    onePlatform: `the target's "platforms" in the bake file, or "${Input.Set}": <target>.platform=linux/amd64`
  });
  return {inputs, argsEnv: {...argsEnv, definition}, printed};
}

/** `docker buildx bake … --print`, with the same files, targets, set, source and workdir as the bake. */
async function resolveDefinition(
  step: Step,
  env: Pick<ArgsEnv, 'github' | 'buildxVersion'>
): Promise<{definition: BakeDefinition; printed: string}> {
  const {signal} = step.deps;
  const args = ['buildx', ...getPrintArgs(step.inputs, env)];
  step.deps.io.logger.info(`Resolving the bake definition: docker ${args.join(' ')}`);
  const res = await step.exec.run(step.docker, args, {
    silent: true,
    cwd: step.inputs.source.workdir,
    timeoutMs: PRINT_TIMEOUT_MS,
    ...(step.token ? {env: {BUILDX_BAKE_GIT_AUTH_TOKEN: step.token}} : {}),
    ...(signal ? {signal} : {})
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

async function build(step: Step, prepared: Prepared, target: BuildTarget, ctx: BuildContext): Promise<BakeResult> {
  const {io} = step.deps;
  const {signal} = ctx;
  const {argsEnv} = prepared;
  const inputs: Inputs = {...prepared.inputs, builder: target.name};
  await io.logger.group('Bake definition', async () => io.logger.info(prepared.printed));
  checkPlatforms(io, argsEnv.definition, target);

  const {args} = getArgs(inputs, {...argsEnv, buildkitSupportsAttestations: targetSupportsAttestations(target)});
  const {res, buildMs} = await runBuildCommand(step, io, {
    title: `Baking on builder "${target.name}"`,
    args,
    cwd: inputs.source.workdir,
    ...(step.token ? {env: {BUILDX_BAKE_GIT_AUTH_TOKEN: step.token}} : {}),
    ...(signal ? {signal} : {})
  });
  ctx.reportRun({buildMs, output: `${res.stderr}\n${res.stdout}`, targets: Object.keys(argsEnv.definition.target)});
  if (signal?.aborted || res.killed === 'aborted') throw cancellation(signal, 'during the bake; the bake was stopped');

  // docker sets `metadata` from the metadata file before it reports a failed bake.
  const {metadata} = step.files.read();
  if (metadata) {
    await io.logger.group('Metadata', async () => {
      const text = formatMetadata(metadata);
      io.logger.info(text);
      io.setOutput(Output.Metadata, text);
    });
  }
  await annotateBuildChecks({io, buildx: step.buildx, action: 'bake', metadata});
  if (res.exitCode !== 0) {
    throw new BuildCommandError(`buildx bake failed with: ${lastLine(res)}`, `${res.stderr}\n${res.stdout}`);
  }

  ctx.reportResult({builder: target.name, targets: targetResults(argsEnv.definition, metadata)});
  return {
    ...(metadata ? {metadata} : {}),
    definition: argsEnv.definition,
    builderName: target.name,
    args: ['buildx', ...args]
  };
}

/**
 * Fails before building when a target of the definition asks for an architecture no node offers (spec §1
 * rule 4, §7: the bake would fail with "exec format error"), naming every such target.
 */
function checkPlatforms(io: ActionIO, definition: BakeDefinition, target: BuildTarget): void {
  const wanted = Object.entries(definition.target)
    .map(([name, t]) => ({name, platforms: targetPlatforms(t)}))
    .filter(t => t.platforms.length > 0);
  if (wanted.length === 0) return;
  if (offeredPlatforms(target).length === 0) {
    io.logger.debug(`bake: platform check skipped: builder "${target.name}" reports no node platforms`);
    return;
  }
  const short = wanted.flatMap(t => {
    const s = platformShortfall(target, t.platforms);
    return s ? [{...t, missing: s.missing}] : [];
  });
  const all = platformShortfall(
    target,
    short.flatMap(t => t.platforms)
  );
  if (short.length === 0 || !all) return;
  const asks = short
    .map(t => `target "${t.name}" asks for ${t.missing.join(', ')} (platforms ${t.platforms.join(',')})`)
    .join('; ');
  const keep = short
    .map(t => ({name: t.name, rest: t.platforms.filter(p => !platformShortfall(target, [p]))}))
    .filter(t => t.rest.length > 0)
    .map(t => `"${t.name}.platform=${t.rest.join(',')}"`);
  const whose = short.length === 1 ? "the target's platforms" : "those targets' platforms";
  const drop = `drop ${all.missing.join(' and ')} from ${whose} (in the bake file${keep.length > 0 ? `, or with the "${Input.Set}" input, e.g. ${keep.join(', ')}` : ''})`;
  throw new Error(
    `Bake ${asks}, but no node of builder "${target.name}" offers ${all.missing.length === 1 ? 'it' : 'them'} (it has ${all.has}); the bake would fail with "exec format error". Fix: ${all.fix}, or ${drop}`
  );
}
