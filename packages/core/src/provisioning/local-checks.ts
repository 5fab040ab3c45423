import {accessSync, constants, statSync} from 'node:fs';
import {delimiter, isAbsolute, join, resolve} from 'node:path';
import type {Buildx} from '../buildx/buildx.js';
import {malformedPlatform} from '../docker/platform-guard.js';
import {errorMessage, InputError} from '../errors.js';
import type {Logger} from '../logger.js';

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
    version = await buildx.version({signal, ...(alternative ? {alternative} : {})});
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
