import {existsSync, mkdirSync, mkdtempSync, rmSync} from 'node:fs';
import {homedir, tmpdir} from 'node:os';
import {join} from 'node:path';
import type {Logger} from '../logger.js';
import {nullLogger} from '../logger.js';
import {BuildxInstallError, USE_RUNNER_BUILDX} from './buildx-install-error.js';
import {buildxAssetName, buildxPlatform, buildxPluginName, type BuildxPlatform} from './buildx-platform.js';
import {BuildxReleases} from './buildx-releases.js';
import type {BuildxVersionRequest} from './buildx-version.js';
import {parseChecksums} from './checksums.js';
import {DirToolCache} from './dir-tool-cache.js';
import {createPluginDockerConfig, userDockerConfigDir} from './plugin-docker-config.js';
import {ReleaseHttp} from './release-http.js';
import type {ToolCache} from './tool-cache.js';

/** The tool name of buildx binaries in the tool cache (`<cache>/docker-buildx/0.19.3/amd64/docker-buildx`). */
export const BUILDX_TOOL_NAME = 'docker-buildx';

export interface BuildxInstallerOpts {
  /** The runner's tool cache; the actions inject `actionsToolCache`. Default: DirToolCache on RUNNER_TOOL_CACHE. */
  toolCache?: ToolCache;
  /** Where releases are downloaded from (default GitHub's docker/buildx); tests serve fakes. */
  releases?: BuildxReleases;
  /** The runner's platform; default this process's. */
  platform?: BuildxPlatform;
  /** DOCKER_CONFIG, RUNNER_TEMP, RUNNER_TOOL_CACHE and the proxy variables are read here; default process.env. */
  env?: Readonly<Record<string, string | undefined>>;
  logger?: Logger;
}

/** A buildx installed for this step: run every docker command of the step with `env`. */
export interface InstalledBuildx {
  /** The release, without the leading v ("0.19.3"); `latest` resolved. */
  version: string;
  /** Merge into the environment of every docker call of the step: `{DOCKER_CONFIG: <private dir>}`. */
  env: {DOCKER_CONFIG: string};
  /** The private DOCKER_CONFIG folder. */
  dockerConfig: string;
  /** The installed plugin (`<dockerConfig>/cli-plugins/docker-buildx`). */
  pluginPath: string;
  /** The verified binary in the tool cache. */
  cachedPath: string;
  /** True when the tool cache had it (nothing was downloaded). */
  fromCache: boolean;
}

/**
 * BuildxInstaller puts the buildx asked for by `buildx-version` in front of the runner's: it resolves `latest`,
 * finds the release in the tool cache or downloads the asset for this OS and arch, verifies it against the
 * release's checksums.txt (SHA-256) before caching it, and installs it as the docker CLI plugin of a private
 * DOCKER_CONFIG (see createPluginDockerConfig). Nothing on the runner is changed outside the tool cache.
 */
export class BuildxInstaller {
  private readonly env: Readonly<Record<string, string | undefined>>;
  private readonly toolCache: ToolCache;
  private readonly releases: BuildxReleases;
  private readonly platform?: BuildxPlatform;
  private readonly logger: Logger;

  constructor(opts: BuildxInstallerOpts = {}) {
    this.env = opts.env ?? process.env;
    this.toolCache = opts.toolCache ?? new DirToolCache(defaultToolCacheDir(this.env));
    this.releases = opts.releases ?? new BuildxReleases({http: new ReleaseHttp({env: this.env})});
    this.platform = opts.platform;
    this.logger = opts.logger ?? nullLogger;
  }

  /** Whether the tool cache holds release `version` for this runner (a platform buildx does not publish: no). */
  cached(version: string): boolean {
    try {
      const platform = this.platform ?? buildxPlatform();
      return this.findCached(version, platform, buildxPluginName(platform)) !== '';
    } catch {
      return false;
    }
  }

  /** Installs the requested release (`latest` resolved first); throws BuildxInstallError with the fix. */
  async install(
    request: Exclude<BuildxVersionRequest, {kind: 'runner'}>,
    opts: {signal?: AbortSignal} = {}
  ): Promise<InstalledBuildx> {
    const platform = this.platform ?? buildxPlatform();
    let version: string;
    if (request.kind === 'latest') {
      version = await this.releases.latestVersion(opts.signal);
      this.logger.info(`buildx-version latest is v${version}`);
    } else {
      version = request.version;
    }

    const pluginName = buildxPluginName(platform);
    let cachedDir = this.findCached(version, platform, pluginName);
    const fromCache = cachedDir !== '';
    if (fromCache) this.logger.info(`buildx v${version} found in the tool cache: ${cachedDir}`);
    else cachedDir = await this.downloadVerified(version, platform, pluginName, opts.signal);

    const cachedPath = join(cachedDir, pluginName);
    const temp = this.tempDir();
    let installed;
    try {
      installed = createPluginDockerConfig({
        userConfigDir: userDockerConfigDir(this.env),
        parentDir: temp,
        pluginSource: cachedPath,
        pluginName
      });
    } catch (e) {
      throw new BuildxInstallError(
        `Failed to install buildx v${version} as a docker CLI plugin under ${temp}: ${(e as Error).message} ` +
          `(check that RUNNER_TEMP and DOCKER_CONFIG are writable, ${USE_RUNNER_BUILDX})`,
        {failure: 'filesystem', cause: e}
      );
    }
    this.logger.info(`buildx v${version} installed for this step's docker commands: ${installed.pluginPath}`);
    const dir = installed.dir;
    return {
      version,
      env: {DOCKER_CONFIG: dir},
      dockerConfig: dir,
      pluginPath: installed.pluginPath,
      cachedPath,
      fromCache
    };
  }

  /** The cache folder holding the plugin, or '' (a folder without the file, e.g. cached by another tool, is a miss). */
  private findCached(version: string, platform: BuildxPlatform, pluginName: string): string {
    const dir = this.toolCache.find(BUILDX_TOOL_NAME, version, platform.arch);
    return dir && existsSync(join(dir, pluginName)) ? dir : '';
  }

  private async downloadVerified(
    version: string,
    platform: BuildxPlatform,
    pluginName: string,
    signal?: AbortSignal
  ): Promise<string> {
    const asset = buildxAssetName(version, platform);
    const url = this.releases.assetUrl(version, asset);
    const sums = parseChecksums(await this.releases.checksums(version, signal));
    const work = mkdtempSync(join(this.tempDir(), 'buildx-download-'));
    try {
      this.logger.info(`Downloading ${url}`);
      const file = join(work, asset);
      const got = await this.releases.download(version, asset, file, signal);
      const expected = sums.get(asset);
      if (expected === undefined) {
        throw new BuildxInstallError(
          `Cannot verify ${asset} from ${url}: checksums.txt of buildx v${version} has no line for it ` +
            `(expected sha256: none, downloaded sha256: ${got.sha256}); the release is incomplete or not ` +
            `what it seems: use another version, ${USE_RUNNER_BUILDX}`,
          {failure: 'checksum', url}
        );
      }
      if (expected !== got.sha256) {
        throw new BuildxInstallError(
          `Checksum mismatch for ${asset} from ${url}: checksums.txt says sha256 ${expected}, the download ` +
            `(${got.bytes} bytes) has sha256 ${got.sha256}; the download was corrupted or tampered with: ` +
            `re-run the job, ${USE_RUNNER_BUILDX}`,
          {failure: 'checksum', url}
        );
      }
      this.logger.info(`Verified ${asset}: sha256 ${got.sha256}`);
      const dir = await this.toolCache.cacheFile(file, pluginName, BUILDX_TOOL_NAME, version, platform.arch);
      this.logger.info(`Cached buildx v${version} in ${dir}`);
      return dir;
    } finally {
      rmSync(work, {recursive: true, force: true});
    }
  }

  private tempDir(): string {
    const dir = this.env['RUNNER_TEMP'] || tmpdir();
    mkdirSync(dir, {recursive: true});
    return dir;
  }
}

/** RUNNER_TOOL_CACHE on a runner; elsewhere (the CLI) a folder in the user's cache. */
function defaultToolCacheDir(env: Readonly<Record<string, string | undefined>>): string {
  return (
    env['RUNNER_TOOL_CACHE'] ||
    join(env['XDG_CACHE_HOME'] || join(homedir(), '.cache'), 'remote-builder-actions', 'tool-cache')
  );
}
