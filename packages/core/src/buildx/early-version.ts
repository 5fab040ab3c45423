import {NodeExec, type ExecResult} from '../exec.js';
import {findBuildxPlugin, PLUGIN_MODE_ENV} from './buildx-plugin.js';

/** How long `buildx version` may take (Buildx.version's limit too). */
export const VERSION_TIMEOUT_MS = 15000;

interface Early {
  command: string;
  args: string[];
  stop: AbortController;
  result: Promise<ExecResult>;
}

let early: Early | undefined;

/**
 * Starts the `buildx version` that a step's local checks run first, exactly as Buildx.version() would run
 * it with the process's own environment (`<plugin> version` when docker's buildx plugin is found, else
 * `docker buildx version`), before the rest of the bundle has loaded: it then runs beside the ~30 ms that
 * loading takes instead of after it. Buildx.version() takes the result when it would run that same command;
 * when it would not (a `buildx-version` install, another docker), the early run is left to end on its own:
 * it only prints a version. Called once, by `@remote-builder-actions/core/early`.
 */
export function startEarlyBuildxVersion(env: NodeJS.ProcessEnv = process.env): void {
  if (early) return;
  const plugin = findBuildxPlugin({docker: 'docker', env});
  const [command, args, extra] = plugin
    ? [plugin, ['version'], {[PLUGIN_MODE_ENV]: ''}]
    : ['docker', ['buildx', 'version'], undefined];
  const stop = new AbortController();
  const own = Object.fromEntries(Object.entries(env).filter((kv): kv is [string, string] => kv[1] !== undefined));
  const result = new NodeExec().run(command, args, {
    silent: true,
    logged: true,
    timeoutMs: VERSION_TIMEOUT_MS,
    signal: stop.signal,
    env: {...own, ...extra}
  });
  early = {command, args, stop, result};
}

/**
 * The early run of `command args`, once; undefined when none was started or it ran something else.
 * `signal` stops it from now on, as it would have stopped a run started now.
 */
export function takeEarlyBuildxVersion(
  command: string,
  args: string[],
  signal?: AbortSignal
): Promise<ExecResult> | undefined {
  const e = early;
  if (!e || e.command !== command || e.args.join('\0') !== args.join('\0')) return undefined;
  early = undefined;
  if (signal?.aborted) e.stop.abort();
  else signal?.addEventListener('abort', () => e.stop.abort(), {once: true});
  return e.result;
}

/** Forgets the early run (tests start one each). */
export function resetEarlyBuildxVersion(): void {
  early?.stop.abort();
  early = undefined;
}
