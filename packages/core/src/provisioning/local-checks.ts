import {accessSync, constants, statSync} from 'node:fs';
import {delimiter, isAbsolute, join, resolve} from 'node:path';
import type {Buildx} from '../buildx/buildx.js';
import type {BakeDefinition} from '../docker/bake-definition.js';
import {malformedPlatform} from '../docker/platform-guard.js';
import {errorMessage, InputError} from '../errors.js';
import type {Logger} from '../logger.js';
import {CancelledError} from '../lifecycle/cancelled-error.js';
import {cancellation} from './cancellation.js';

/**
 * The checks run before anything is assigned: each one that fails here costs nothing, where the same
 * mistake found after the assignment would have billed a builder.
 */

/**
 * `docker buildx version`, logged. When docker or buildx is missing, the BuildxUnavailableError from
 * Buildx.version already keeps docker's own reason and our advice; `alternative` (e.g. set buildx-version)
 * is offered next to it, and `note` (e.g. "nothing was assigned") ends the message. Any other failure (an
 * unreadable version line) is wrapped with `note` too.
 */
export async function requireBuildx(
  buildx: Buildx,
  io: {logger: Logger},
  signal?: AbortSignal,
  note?: string,
  alternative?: string
): Promise<string> {
  let version: string;
  try {
    version = await buildx.version({signal, alternative});
  } catch (e) {
    if (signal?.aborted) throw e;
    throw new Error(note ? `${errorMessage(e)}; ${note}` : errorMessage(e), {cause: e});
  }
  io.logger.info(`docker buildx ${version}`);
  return version;
}

/**
 * Fails with an InputError naming `input` when a requested platform is malformed (see malformedPlatform).
 * Whether the builders run it is known only once they are assigned: the service's profile listing gives a
 * profile's id and nothing else (service-api §4.5, "Other fields: not shown"), so the architectures a profile
 * has enabled cannot be read before assigning; platformShortfall checks them against the ready nodes.
 */
export function checkPlatformNames(platforms: string[], input: string): void {
  const bad = malformedPlatform(platforms);
  if (bad === undefined) return;
  throw new InputError(
    input,
    `"${bad}" is not a platform: use os/arch[/variant], e.g. linux/amd64 or linux/arm64, separated by commas or new lines`
  );
}

/** One build that loads its image into the runner's engine (`load`, or bake's docker exporter). */
export interface LoadedBuild {
  /** A bake target's name; none for build-push's one build. */
  target?: string;
  platforms: string[];
}

/**
 * The targets of a bake definition that load into the runner's engine: all with `load` (bake --print with
 * --load already shows them so), else those exporting `type=docker` without a `dest` (a tarball is no load).
 */
export function bakeLoadedBuilds(definition: BakeDefinition, load: boolean): LoadedBuild[] {
  return Object.entries(definition.target)
    .filter(([, t]) => load || (t.output ?? []).some(o => o.type === 'docker' && o['dest'] === undefined))
    .map(([target, t]) => ({target, platforms: t.platforms ?? []}));
}

export interface MultiPlatformLoadOpts {
  logger: Logger;
  signal?: AbortSignal;
  /** The input names the error gives (e.g. `load`, `platforms`). */
  inputs: {load: string; platforms: string};
  /** How to build one platform, when not by `inputs.platforms` (bake: the targets' `platforms`, or `set`). */
  onePlatform?: string;
}

/**
 * Fails with an InputError naming `load` when a build loads more than one platform into an engine on the
 * classic image store: only the containerd image store holds multi-platform images, and buildx would fail
 * ("docker exporter does not currently support exporting manifest lists") after a builder was assigned. When
 * `docker info` cannot tell the store (no engine reachable), nothing is blocked: the build decides, as before.
 * Runs `docker info` only when some build loads several platforms.
 */
export async function checkMultiPlatformLoad(
  buildx: Buildx,
  builds: LoadedBuild[],
  opts: MultiPlatformLoadOpts
): Promise<void> {
  const multi = builds.filter(b => new Set(b.platforms).size > 1);
  if (multi.length === 0) return;
  const probe = await buildx.imageStore(opts.signal ? {signal: opts.signal} : {});
  if (probe.store === undefined) {
    opts.logger.debug(`checkMultiPlatformLoad: the image store is unknown (${probe.why}); not checked`);
    return;
  }
  opts.logger.debug(`checkMultiPlatformLoad: the engine uses the ${probe.store} image store`);
  if (probe.store === 'containerd') return;
  const {load, platforms} = opts.inputs;
  const onePlatform = opts.onePlatform ?? `"${platforms}"`;
  const what = multi
    .map(b => `${b.target !== undefined ? `target "${b.target}": ` : ''}${[...new Set(b.platforms)].join(', ')}`)
    .join('; ');
  throw new InputError(
    load,
    `loading an image of more than one platform (${what}) into the runner's Docker Engine needs its containerd image store, and this engine uses the classic one, which holds one platform per image: buildx would fail with "docker exporter does not currently support exporting manifest lists". Fix: enable the containerd image store on the runner's engine ("features": {"containerd-snapshotter": true} in /etc/docker/daemon.json, then restart Docker; the default of fresh Docker 29 installs), or build one platform (${onePlatform}), or push the image instead of loading it. Nothing was assigned`
  );
}

export interface RequireCommandOpts {
  /** PATH (and PATHEXT on Windows) are read from here. */
  env: NodeJS.ProcessEnv;
  /** Where a relative path such as `./build.sh` is resolved. */
  cwd: string;
}

/**
 * The path `command` runs from: itself when it names a path (has a '/'), else the first executable file of
 * that name on PATH. Throws naming the command and the fix when there is none, so a typo fails before a
 * builder is assigned for it.
 */
export function requireCommand(command: string, opts: RequireCommandOpts): string {
  const candidates =
    command.includes('/') || (process.platform === 'win32' && command.includes('\\'))
      ? [isAbsolute(command) ? command : resolve(opts.cwd, command)]
      : (opts.env['PATH'] ?? '')
          .split(delimiter)
          .filter(d => d !== '')
          .flatMap(d => executableNames(command, opts.env).map(n => join(isAbsolute(d) ? d : resolve(opts.cwd, d), n)));
  const found = candidates.find(isExecutableFile);
  if (found !== undefined) return found;
  throw new CommandNotFoundError(
    command,
    command.includes('/')
      ? `Cannot run "${command}": no executable file at ${candidates[0]}; check the path and its execute permission. Nothing was assigned`
      : `Cannot run "${command}": it is not found on PATH; install it or give its full path. Nothing was assigned`
  );
}

function executableNames(command: string, env: NodeJS.ProcessEnv): string[] {
  if (process.platform !== 'win32') return [command];
  const exts = (env['PATHEXT'] ?? '.EXE;.CMD;.BAT;.COM').split(';').filter(e => e !== '');
  return [command, ...exts.map(e => `${command}${e}`)];
}

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The command to run with a builder is not found (checked before assigning). */
export class CommandNotFoundError extends Error {
  constructor(
    readonly command: string,
    message: string
  ) {
    super(message);
    this.name = 'CommandNotFoundError';
  }
}

/** Title of the log group of the checks done before anything is assigned. */
export const LOCAL_CHECKS_GROUP = 'Checking locally before assigning (nothing is billed yet)';

/** What to check before assigning; each part is skipped when not given. */
export interface LocalChecks<T> {
  /**
   * `docker buildx version`; `note` ends the message when buildx is missing (e.g. "nothing was assigned"), `alternative` is one
   * more way out (see BuildxUnavailableError), e.g. INSTALL_BUILDX_ALTERNATIVE.
   */
  buildx?: {note?: string; alternative?: string};
  /** Requested platforms, checked for form (the builders' platforms are checked once they are ready). */
  platforms?: {values: string[]; name: string};
  /** A command to run with the builder: it must be found (CLI `builder run`). */
  command?: {name: string} & RequireCommandOpts;
  /** The caller's own local work (argv gates, the bake definition, …). */
  more?: (buildxVersion: string | undefined) => Promise<T>;
}

export interface LocalCheckResult<T> {
  /** undefined when buildx was not checked. */
  buildxVersion?: string;
  more: T;
}

/**
 * The local checks, in their own log group: the first that fails ends the step before any assignment.
 * Cancellation during a check is reported as such, not as the check's failure.
 */
export async function runLocalChecks<T = undefined>(
  env: {logger: Logger; buildx: Buildx; signal?: AbortSignal | undefined},
  checks: LocalChecks<T>
): Promise<LocalCheckResult<T>> {
  const {logger, signal} = env;
  return logger.group(LOCAL_CHECKS_GROUP, async () => {
    try {
      if (checks.platforms) checkPlatformNames(checks.platforms.values, checks.platforms.name);
      if (checks.command) requireCommand(checks.command.name, checks.command);
      const buildxVersion = checks.buildx
        ? await requireBuildx(env.buildx, {logger}, signal, checks.buildx.note, checks.buildx.alternative)
        : undefined;
      const more = (checks.more ? await checks.more(buildxVersion) : undefined) as T;
      return {buildxVersion, more};
    } catch (e) {
      throw signal?.aborted && !(e instanceof CancelledError) ? cancellation(signal, 'during the local checks') : e;
    }
  });
}
