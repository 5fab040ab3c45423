export {BuildxInstallError, type BuildxInstallErrorOpts, type BuildxInstallFailure} from './buildx-install-error.js';
export {BUILDX_TOOL_NAME, BuildxInstaller, type BuildxInstallerOpts, type InstalledBuildx} from './buildx-installer.js';
export {
  buildxAssetName,
  buildxPlatform,
  buildxPluginName,
  type BuildxPlatform,
  type NodePlatform
} from './buildx-platform.js';
export {BUILDX_RELEASES_BASE_URL, BuildxReleases, type BuildxReleasesOpts} from './buildx-releases.js';
export {BUILDX_VERSION_INPUT, parseBuildxVersion, type BuildxVersionRequest} from './buildx-version.js';
export {parseChecksums} from './checksums.js';
export {DirToolCache} from './dir-tool-cache.js';
export {
  createPluginDockerConfig,
  userDockerConfigDir,
  type PluginDockerConfig,
  type PluginDockerConfigOpts
} from './plugin-docker-config.js';
export {ReleaseHttp, type ReleaseGet, type ReleaseHttpOpts} from './release-http.js';
export type {ToolCache} from './tool-cache.js';
