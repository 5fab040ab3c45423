import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync
} from 'node:fs';
import {homedir} from 'node:os';
import {join} from 'node:path';

export interface PluginDockerConfigOpts {
  /** The user's DOCKER_CONFIG folder (may not exist yet). */
  userConfigDir: string;
  /** Where the private folder is created (e.g. RUNNER_TEMP). */
  parentDir: string;
  /** The buildx binary to install. */
  pluginSource: string;
  /** Its name in cli-plugins: `docker-buildx` (`.exe` on Windows). */
  pluginName: string;
}

/** A DOCKER_CONFIG of our own whose cli-plugins holds the buildx we installed. */
export interface PluginDockerConfig {
  dir: string;
  pluginPath: string;
}

/** The DOCKER_CONFIG docker would use with `env`: $DOCKER_CONFIG, else ~/.docker. */
export function userDockerConfigDir(env: Readonly<Record<string, string | undefined>> = process.env): string {
  return env['DOCKER_CONFIG'] || join(homedir(), '.docker');
}

/**
 * Creates a private DOCKER_CONFIG in which docker finds our buildx first, while everything else stays the
 * user's: config.json is copied (registry logins, credential helpers, proxies), every other entry (the
 * `buildx` builder store, `contexts`, …) is a link to the user's, so builders created through it are the
 * user's builders. The user's `buildx` folder is created when missing for that reason. The user's other CLI
 * plugins (compose, …) are linked into our cli-plugins, and `cliPluginsExtraDirs` is folded in the same way
 * and dropped from the copy, because docker searches those folders before cli-plugins. Nothing of the
 * user's is modified, unlike setup-buildx-action, which installs into the user's own cli-plugins.
 */
export function createPluginDockerConfig(opts: PluginDockerConfigOpts): PluginDockerConfig {
  const user = opts.userConfigDir;
  mkdirSync(opts.parentDir, {recursive: true});
  const dir = mkdtempSync(join(opts.parentDir, 'docker-config-buildx-'));
  chmodSync(dir, 0o700);
  mkdirSync(join(user, 'buildx'), {recursive: true});

  let extraDirs: string[] = [];
  const userConfig = join(user, 'config.json');
  if (existsSync(userConfig)) {
    const raw = readFileSync(userConfig, 'utf8');
    let copy = raw;
    try {
      const parsed = JSON.parse(raw) as Record<string, unknown>;
      const extra = parsed['cliPluginsExtraDirs'];
      if (Array.isArray(extra)) {
        extraDirs = extra.filter((d): d is string => typeof d === 'string');
        delete parsed['cliPluginsExtraDirs'];
        copy = JSON.stringify(parsed, undefined, '\t');
      }
    } catch {
      // Not JSON: copied as it is, so docker reports the problem as it would without us.
    }
    writeFileSync(join(dir, 'config.json'), copy, {mode: 0o600});
  }

  for (const entry of readdirSync(user)) {
    if (entry === 'config.json' || entry === 'cli-plugins') continue;
    link(join(user, entry), join(dir, entry));
  }

  const plugins = join(dir, 'cli-plugins');
  mkdirSync(plugins);
  const pluginPath = join(plugins, opts.pluginName);
  copyFileSync(opts.pluginSource, pluginPath);
  chmodSync(pluginPath, 0o755);
  // Docker's search order: cliPluginsExtraDirs, then $DOCKER_CONFIG/cli-plugins; the first match wins.
  for (const source of [...extraDirs, join(user, 'cli-plugins')]) {
    if (!isDir(source)) continue;
    for (const name of readdirSync(source)) {
      if (/^docker-buildx(\.exe)?$/i.test(name) || existsSync(join(plugins, name))) continue;
      link(join(source, name), join(plugins, name));
    }
  }
  return {dir, pluginPath};
}

/** A symlink (a junction for folders on Windows), or a copy where links are not allowed. */
function link(target: string, path: string): void {
  const folder = isDir(target);
  try {
    symlinkSync(target, path, folder ? 'junction' : 'file');
  } catch {
    if (folder) cpSync(target, path, {recursive: true});
    else copyFileSync(target, path);
  }
}

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory() || (lstatSync(path).isSymbolicLink() && statSync(path).isDirectory());
  } catch {
    return false;
  }
}
