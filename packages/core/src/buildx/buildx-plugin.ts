import {closeSync, openSync, readFileSync, readSync, statSync} from 'node:fs';
import {delimiter, join} from 'node:path';
import {userDockerConfigDir} from '../buildx-install/plugin-docker-config.js';
import type {Exec, ExecResult} from '../exec.js';
import type {Logger} from '../logger.js';

/**
 * Set by the docker CLI when it runs a plugin; a plugin that sees it expects `buildx` as its first argument.
 * Emptied for a direct call (buildx treats an empty variable as unset) so the plugin answers standalone.
 */
export const PLUGIN_MODE_ENV = 'DOCKER_CLI_PLUGIN_ORIGINAL_CLI_COMMAND';

type Env = Readonly<Record<string, string | undefined>>;

/** The system folders docker searches for plugins after the user's (docker/cli cli-plugins/manager, manager_unix.go, manager_windows.go). */
export function systemPluginDirs(platform: NodeJS.Platform, env: Env): string[] {
  if (platform !== 'win32') {
    return [
      '/usr/local/lib/docker/cli-plugins',
      '/usr/local/libexec/docker/cli-plugins',
      '/usr/lib/docker/cli-plugins',
      '/usr/libexec/docker/cli-plugins'
    ];
  }
  return ['ProgramData', 'ProgramFiles'].filter(v => env[v]).map(v => join(env[v] as string, 'Docker', 'cli-plugins'));
}

export interface FindBuildxPluginOpts {
  /** The docker CLI the step runs: a name looked up on PATH, or a path. */
  docker: string;
  /** The environment docker runs with (PATH, DOCKER_CONFIG, HOME). */
  env: Env;
  /** Default process.platform. */
  platform?: NodeJS.Platform;
  /** Default systemPluginDirs(platform, env). */
  systemDirs?: string[];
}

/**
 * The buildx plugin `docker buildx` would run, found as the docker CLI finds it (getPluginDirs, then
 * PluginRunCommand: the first folder holding `docker-buildx` wins): the folders of config.json's
 * `cliPluginsExtraDirs`, then `<DOCKER_CONFIG or ~/.docker>/cli-plugins`, then the system folders.
 * Undefined when there is none, when the first match is not a file (docker would fail: let it say why),
 * or when `docker` is not an executable binary: a script in front of docker (a wrapper, podman-docker, a
 * test's fake docker) may send `docker buildx` anywhere, so only docker itself is trusted to look plugins
 * up this way.
 */
export function findBuildxPlugin(opts: FindBuildxPluginOpts): string | undefined {
  const platform = opts.platform ?? process.platform;
  const {env} = opts;
  if (!resolveBinary(opts.docker, env, platform)) return undefined;
  const configDir = userDockerConfigDir(env);
  const dirs = [
    ...extraPluginDirs(join(configDir, 'config.json')),
    join(configDir, 'cli-plugins'),
    ...(opts.systemDirs ?? systemPluginDirs(platform, env))
  ];
  const name = platform === 'win32' ? 'docker-buildx.exe' : 'docker-buildx';
  for (const dir of dirs) {
    const stat = statOf(join(dir, name));
    if (stat) return stat.isFile() ? join(dir, name) : undefined;
  }
  return undefined;
}

export interface PluginVersionOpts {
  exec: Exec;
  logger: Logger;
  /** The environment of the step's docker calls (e.g. DOCKER_CONFIG), merged over process.env. */
  env?: Record<string, string>;
  timeoutMs: number;
  signal?: AbortSignal;
  /** The same command, already started (takeEarlyBuildxVersion): its result is taken instead of a new run. */
  started?: Promise<ExecResult>;
}

/**
 * `<plugin> version`: one process where `docker buildx version` takes three (docker, the plugin's
 * metadata, the plugin). Resolves the raw result, or undefined when it did not answer with exit 0 (the
 * caller then asks docker, whose error says what is wrong).
 */
export async function runPluginVersion(
  plugin: string,
  opts: PluginVersionOpts
): Promise<{stdout: string; killed?: 'timeout' | 'aborted'} | undefined> {
  const res = await (opts.started ??
    opts.exec.run(plugin, ['version'], {
      silent: true,
      timeoutMs: opts.timeoutMs,
      signal: opts.signal,
      env: {...opts.env, [PLUGIN_MODE_ENV]: ''}
    }));
  if (res.killed === 'aborted' || res.exitCode === 0) return res;
  opts.logger.debug(`\`${plugin} version\` failed (exit ${res.exitCode}: ${res.stderr.trim()}); asking docker`);
  return undefined;
}

/**
 * Where `command` runs from (itself when it names a path, else the first match on env's PATH) when that is an
 * executable binary rather than a script; undefined when it is a script or not found.
 */
export function resolveBinary(
  command: string,
  env: Env,
  platform: NodeJS.Platform = process.platform
): string | undefined {
  const path = resolveCommand(command, env, platform);
  return isBinary(path) ? path : undefined;
}

/** Where `command` runs from: itself when it names a path, else the first match on env's PATH. */
function resolveCommand(command: string, env: Env, platform: NodeJS.Platform): string | undefined {
  if (command.includes('/') || (platform === 'win32' && command.includes('\\'))) return command;
  const names = platform === 'win32' && !/\.exe$/i.test(command) ? [`${command}.exe`] : [command];
  for (const dir of (env['PATH'] ?? '').split(platform === 'win32' ? ';' : delimiter)) {
    if (dir === '') continue;
    for (const name of names) if (statOf(join(dir, name))?.isFile()) return join(dir, name);
  }
  return undefined;
}

/** True for a file that does not start with `#!` (an executable binary rather than a script). */
function isBinary(path: string | undefined): boolean {
  if (path === undefined) return false;
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const head = Buffer.alloc(2);
    const n = readSync(fd, head, 0, 2, 0);
    return n === 2 && head.toString('latin1') !== '#!';
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** config.json's `cliPluginsExtraDirs`; none when it is missing or unreadable (docker then has none either). */
function extraPluginDirs(configJson: string): string[] {
  try {
    const extra = (JSON.parse(readFileSync(configJson, 'utf8')) as {cliPluginsExtraDirs?: unknown}).cliPluginsExtraDirs;
    return Array.isArray(extra) ? extra.filter((d): d is string => typeof d === 'string') : [];
  } catch {
    return [];
  }
}

function statOf(path: string): ReturnType<typeof statSync> | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}
