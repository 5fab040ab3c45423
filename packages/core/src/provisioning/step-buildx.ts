import {existsSync, rmSync} from 'node:fs';
import {BuildxInstaller, type InstalledBuildx} from '../buildx-install/buildx-installer.js';
import {BuildxReleases} from '../buildx-install/buildx-releases.js';
import {BUILDX_VERSION_INPUT, type BuildxVersionRequest} from '../buildx-install/buildx-version.js';
import {ReleaseHttp} from '../buildx-install/release-http.js';
import type {ToolCache} from '../buildx-install/tool-cache.js';
import {errorMessage} from '../errors.js';
import type {Exec, ExecOpts, ExecResult} from '../exec.js';
import {Env, resolveBuildxReleasesUrl} from '../inputs.js';
import type {ActionIO} from '../adapters/action-io.js';
import {cancellation} from './cancellation.js';
import type {PostStateGuard} from './post-state-guard.js';

/** State keys of the buildx a step installed (post needs it for `buildx rm`, then removes it). */
export enum BuildxInstallState {
  /** The private DOCKER_CONFIG folder holding the installed plugin. */
  DockerConfig = 'buildxDockerConfig'
}

/** The way out offered when the runner has no buildx (BuildxUnavailableError's `alternative`). */
export {INSTALL_BUILDX_ALTERNATIVE} from '../buildx/buildx-unavailable.js';

/** Appended to the buildx version gates' messages: how to get a buildx recent enough for an input. */
export function newerBuildxHint(min?: string): string {
  const release = min ? ` (or v${min} or later)` : '';
  return `set "${BUILDX_VERSION_INPUT}: latest"${release} to install a newer buildx for the step`;
}

/** Loads the runner's tool cache; only called when `buildx-version` asks for an install. */
export type LoadToolCache = () => Promise<ToolCache | undefined>;

/**
 * The @actions/tool-cache adapter, imported on demand: ncc emits it (with @actions/exec and the whole of
 * semver behind it) as separate chunks that only steps installing buildx load. Undefined off a runner (no
 * RUNNER_TOOL_CACHE, which @actions/tool-cache requires): the installer's own folder cache is used.
 */
export function defaultLoadToolCache(env: NodeJS.ProcessEnv): LoadToolCache {
  return async () => {
    if (!env['RUNNER_TOOL_CACHE']) return undefined;
    const {actionsToolCache} = await import('../adapters/tool-cache.js');
    return actionsToolCache;
  };
}

/** The buildx every docker call of a step runs with. */
export interface StepBuildx {
  /** Merge into the environment of every docker call: {} for the runner's buildx, else {DOCKER_CONFIG}. */
  env: Record<string, string>;
  /** Set when `buildx-version` installed one. */
  installed?: InstalledBuildx;
}

export interface SetUpStepBuildxOpts {
  request: BuildxVersionRequest;
  io: Pick<ActionIO, 'logger' | 'state' | 'env'>;
  signal?: AbortSignal;
  /** Default defaultLoadToolCache(io.env). */
  loadToolCache?: LoadToolCache;
  /** Default: an installer on REMOTE_BUILDER_BUILDX_RELEASES_URL (else GitHub) and the loaded tool cache. */
  installer?: BuildxInstaller;
}

/**
 * The buildx of the step, set up before anything is assigned (a failed download bills nothing): with an
 * empty `buildx-version` the runner's (nothing to do), else the release installed in its own log group and
 * saved in state for post. Throws BuildxInstallError (URL, status, digests, what to do).
 */
export async function setUpStepBuildx(opts: SetUpStepBuildxOpts): Promise<StepBuildx> {
  const {request, io} = opts;
  if (request.kind === 'runner') return {env: {}};
  const releasesUrl = resolveBuildxReleasesUrl(io.env);
  const toolCache = opts.installer ? undefined : await (opts.loadToolCache ?? defaultLoadToolCache(io.env))();
  const installer =
    opts.installer ??
    new BuildxInstaller({
      env: io.env,
      logger: io.logger,
      toolCache,
      releases: releasesUrl
        ? new BuildxReleases({baseUrl: releasesUrl, http: new ReleaseHttp({env: io.env})})
        : undefined
    });
  const title =
    request.kind === 'latest'
      ? 'Installing the latest buildx'
      : installer.cached(request.version)
        ? `Using buildx v${request.version} from the tool cache`
        : `Installing buildx v${request.version}`;
  const installed = await io.logger.group(title, async () => {
    if (releasesUrl) io.logger.info(`Downloading from ${releasesUrl} (${Env.BuildxReleasesUrl})`);
    try {
      return await installer.install(request, {signal: opts.signal});
    } catch (e) {
      throw opts.signal?.aborted ? cancellation(opts.signal, 'while installing buildx; nothing was assigned') : e;
    }
  });
  io.state.save(BuildxInstallState.DockerConfig, installed.dockerConfig);
  return {env: installed.env, installed};
}

/** An Exec that runs every command with `env` over the caller's: the step's docker calls see its buildx. */
export function execWithEnv(exec: Exec, env: Record<string, string>): Exec {
  if (Object.keys(env).length === 0) return exec;
  return {
    run: (command: string, args: string[], opts: ExecOpts = {}): Promise<ExecResult> =>
      exec.run(command, args, {...opts, env: {...opts.env, ...env}})
  };
}

/**
 * The private DOCKER_CONFIG main saved, when it still exists (post runs `buildx rm` through it), else
 * undefined (nothing was installed, or it is gone, or `guard` refuses it: buildx would run from there).
 */
export function installedDockerConfig(io: Pick<ActionIO, 'state'>, guard?: PostStateGuard): string | undefined {
  const saved = io.state.get(BuildxInstallState.DockerConfig);
  const dir = guard && saved ? guard.path('the installed buildx (DOCKER_CONFIG)', saved) : saved;
  return dir && existsSync(dir) ? dir : undefined;
}

/** Removes the private DOCKER_CONFIG (its links only: the user's config and builders stay); warns on failure. */
export function removeInstalledBuildx(io: Pick<ActionIO, 'logger'>, dir: string): void {
  try {
    rmSync(dir, {recursive: true, force: true});
    io.logger.info(`Removed the buildx installed for the job (${dir})`);
  } catch (e) {
    io.logger.warning(`Failed to remove ${dir}: ${errorMessage(e)}`);
  }
}

/**
 * configure's builder is used by later steps with their own docker calls: export the private DOCKER_CONFIG
 * for the rest of the job so they run the same buildx and see the builder (post removes the folder).
 */
export function exportInstalledBuildx(
  io: Pick<ActionIO, 'env' | 'exportVariable' | 'logger'>,
  installed: Pick<InstalledBuildx, 'dockerConfig' | 'version'>
): void {
  const user = io.env['DOCKER_CONFIG'];
  io.exportVariable('DOCKER_CONFIG', installed.dockerConfig);
  io.logger.info(
    `Exported DOCKER_CONFIG=${installed.dockerConfig} for the rest of the job: later steps (docker/build-push-action, ` +
      `docker/bake-action, run: docker buildx …) use buildx v${installed.version} and see the builder. ` +
      `${user ? `Your DOCKER_CONFIG (${user})` : '~/.docker'} is not modified: its config.json was copied and its ` +
      `other entries are linked. A step that sets DOCKER_CONFIG in its own env: uses that instead (and the runner's buildx).`
  );
}
