import {existsSync, rmSync} from 'node:fs';
import {errorMessage} from '../errors.js';
import {resolveApiUrl} from '../inputs.js';
import {FALLBACK_BUILDER_PREFIX, removeLocalFallbackBuilder} from '../lifecycle/local-fallback.js';
import {readBakeDefinition} from '../report/bake-definition-file.js';
import {readSummaryInputs, type SummaryInputsSpec} from '../report/build-inputs.js';
import {defaultMakeBuilderApi} from './builder-api-factory.js';
import {BuildStepInput, BuildStepState, RemoteInput} from './action-inputs.js';
import {postStepCleanup, type PostCleanupResult} from './post-cleanup.js';
import {PostStateGuard} from './post-state-guard.js';
import {installedDockerConfig, removeInstalledBuildx} from './step-buildx.js';
import {stepBuildx, type StepDeps} from './step-deps.js';

/** Names of what the post step reads; the last two only for the build steps. */
export interface PostStepNames {
  /** The action's api-key input (read again: the key is never saved in state). */
  apiKeyInput: string;
  /** The action's `builder` input: set, the build ran on a builder this step did not create. */
  builderInput?: string;
  /** State key under which main saved its private build folder. */
  tmpDirState?: string;
  /** The inputs docker's summary shows ("Build inputs"), read here: build-push and bake. */
  summaryInputs?: SummaryInputsSpec;
}

/**
 * The post step of every action (configure, build-push, bake): remove the build's private folder if main
 * could not, remove a local fallback builder main left, then buildx rm, the certificates, and tear down every
 * builder main assigned and did not tear down; writes the run's job summary; last, removes the buildx main
 * installed (`buildx-version`), which ran those docker calls. Never fails the job.
 */
export async function runPostStep(deps: StepDeps, names: PostStepNames): Promise<PostCleanupResult> {
  const {io} = deps;
  // Post acts only on what main wrote: the step's own service URL, folders in its temp folder, its builders.
  const guard = new PostStateGuard({
    logger: io.logger,
    apiUrl: ownApiUrl(io),
    tempDir: io.env['RUNNER_TEMP']
  });
  const savedTmpDir = names.tmpDirState ? io.state.get(names.tmpDirState) : undefined;
  const tmpDir = savedTmpDir ? guard.path('the build folder', savedTmpDir) : undefined;
  // bake's definition for the job summary, read before the folder goes.
  const bakeDefinition = tmpDir ? readBakeDefinition(tmpDir) : undefined;
  if (tmpDir && existsSync(tmpDir)) {
    try {
      rmSync(tmpDir, {recursive: true, force: true});
      io.logger.info(`Removed ${tmpDir}`);
    } catch (e) {
      io.logger.warning(`Failed to remove ${tmpDir}: ${errorMessage(e)}`);
    }
  }
  const builder = names.builderInput ? io.getInput(names.builderInput) : '';
  if (builder !== '') {
    io.logger.info(
      `The build ran on builder "${builder}" (builder input), which this step did not create: nothing to tear down.`
    );
  }
  // The buildx main installed (buildx-version) removes what main created with it, then goes.
  const installed = installedDockerConfig(io, guard);
  const inputsSpec = names.summaryInputs;
  const buildx = stepBuildx(deps, installed ? {DOCKER_CONFIG: installed} : {});
  try {
    // A local fallback builder main could not remove (killed, or its removal failed).
    await removeLocalFallbackBuilder({
      buildx,
      logger: io.logger,
      state: io.state,
      accept: name => guard.builderName(name, FALLBACK_BUILDER_PREFIX) !== undefined
    });
    return await postStepCleanup({
      io,
      guard,
      apiKeyInput: names.apiKeyInput,
      makeApi: deps.makeApi ?? defaultMakeBuilderApi({env: io.env, logger: io.logger}),
      buildx,
      summary: {
        inputs: inputsSpec ? () => readSummaryInputs(io, inputsSpec) : undefined,
        bakeDefinition
      }
    });
  } finally {
    if (installed) removeInstalledBuildx(io, installed);
  }
}

/** The post step of a build action (build-push, bake): its inputs' names, and the inputs its summary shows. */
export function runBuildPostStep(deps: StepDeps, summaryInputs: SummaryInputsSpec): Promise<PostCleanupResult> {
  return runPostStep(deps, {
    apiKeyInput: BuildStepInput.ApiKey,
    builderInput: BuildStepInput.Builder,
    tmpDirState: BuildStepState.TmpDir,
    summaryInputs
  });
}

/** The service URL the step's own inputs name (api-url, else REMOTE_BUILDER_API_URL); undefined when none. */
function ownApiUrl(io: StepDeps['io']): string | undefined {
  try {
    return resolveApiUrl(io.getInput(RemoteInput.ApiUrl), io.env, RemoteInput.ApiUrl);
  } catch {
    return undefined;
  }
}
