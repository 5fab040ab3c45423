import {BuildxInstallError, USE_RUNNER_BUILDX} from './buildx-install-error.js';

/** The OS and architecture of a buildx release asset, as buildx names them (linux, arm-v7, …). */
export interface BuildxPlatform {
  /** linux, darwin, windows, freebsd, … */
  readonly os: string;
  /** amd64, arm64, arm-v7, ppc64le, … */
  readonly arch: string;
  /** `.exe` on Windows, else ''. */
  readonly ext: string;
}

/** What Node says about the machine; defaults to this process. */
export interface NodePlatform {
  platform?: NodeJS.Platform;
  arch?: string;
  /** ARM version Node was built for (process.config.variables.arm_version), for arch `arm`. */
  armVersion?: string;
}

// Node's process.platform → buildx's GOOS; only the ones buildx publishes binaries for.
const OS: Partial<Record<NodeJS.Platform, string>> = {
  linux: 'linux',
  darwin: 'darwin',
  win32: 'windows',
  freebsd: 'freebsd',
  openbsd: 'openbsd',
  netbsd: 'netbsd'
};

// Node's process.arch → buildx's GOARCH suffix (docker/actions-toolkit src/buildx/install.ts `filename`).
const ARCH: Record<string, string> = {
  x64: 'amd64',
  arm64: 'arm64',
  ppc64: 'ppc64le',
  s390x: 's390x',
  riscv64: 'riscv64'
};

/**
 * The buildx asset platform of this machine (or of `node`). An OS or architecture buildx has no release for
 * throws a BuildxInstallError ('platform') that names both and the way out.
 */
export function buildxPlatform(node: NodePlatform = {}): BuildxPlatform {
  const platform = node.platform ?? process.platform;
  const nodeArch = node.arch ?? process.arch;
  const os = OS[platform];
  let arch = ARCH[nodeArch];
  if (nodeArch === 'arm') arch = `arm-v${node.armVersion ?? nodeArmVersion() ?? '7'}`;
  if (os === undefined || arch === undefined) {
    throw new BuildxInstallError(
      `buildx publishes no release for this runner (${platform}/${nodeArch}): install buildx on the runner ` +
        USE_RUNNER_BUILDX,
      {failure: 'platform'}
    );
  }
  return {os, arch, ext: os === 'windows' ? '.exe' : ''};
}

/** The release asset of `version` (no leading v) for `platform`: `buildx-v0.19.3.linux-amd64`. */
export function buildxAssetName(version: string, platform: BuildxPlatform): string {
  return `buildx-v${version}.${platform.os}-${platform.arch}${platform.ext}`;
}

/** The file name docker looks for in a cli-plugins folder. */
export function buildxPluginName(platform: BuildxPlatform): string {
  return `docker-buildx${platform.ext}`;
}

function nodeArmVersion(): string | undefined {
  const v = (process.config.variables as Record<string, unknown>)['arm_version'];
  return typeof v === 'string' || typeof v === 'number' ? String(v) : undefined;
}
