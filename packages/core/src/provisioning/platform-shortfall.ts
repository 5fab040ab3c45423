import {unionPlatforms} from '../buildx/platforms.js';
import {missingArchitectures, offeredArchitectures} from '../docker/platform-guard.js';

/** What the platform check needs of a builder: its nodes' platforms, and where it came from. */
export interface PlatformHolder {
  nodes: {platforms: string[]}[];
  /** Profile the builders came from; undefined for a builder given by the user. */
  profile?: string;
  /** Set when it is a local fallback builder. */
  fallback?: string;
}

/** What a builder lacks for the requested platforms, and how to fix it. */
export interface PlatformShortfall {
  /** Requested architectures no node offers, in request order. */
  missing: string[];
  /** What the nodes offer, e.g. "amd64, 386". */
  has: string;
  /** The fix, e.g. `enable arm64 on builder profile "p" in the web UI`. */
  fix: string;
}

/** Union of the platforms the nodes report; [] when none reports any. */
export function offeredPlatforms(target: Pick<PlatformHolder, 'nodes'>): string[] {
  return unionPlatforms(target.nodes.map(n => n.platforms));
}

/**
 * The architectures of `requested` that no node offers (spec §1 rule 4, §7: such a build fails with "exec
 * format error"), with the guard's reading of platforms ("linux/arm64/v8" is arm64, "linux/x86_64" amd64,
 * "linux/386" runs on amd64); undefined when nothing is missing or the nodes report no platforms.
 */
export function platformShortfall(target: PlatformHolder, requested: string[]): PlatformShortfall | undefined {
  const offered = offeredPlatforms(target);
  const missing = missingArchitectures(requested, offered);
  if (missing.length === 0) return undefined;
  const archs = missing.join(' and ');
  const fix =
    target.fallback !== undefined
      ? `install QEMU for ${archs} on the runner (docker/setup-qemu-action) so the local fallback builder can emulate it`
      : target.profile !== undefined
        ? `enable ${archs} on builder profile "${target.profile}" in the web UI`
        : `use a builder with a ${archs} node (e.g. made by the configure action from a profile with ${archs} enabled)`;
  return {missing, has: [...offeredArchitectures(offered)].join(', '), fix};
}
