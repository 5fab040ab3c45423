import {unionPlatforms} from '../buildx/platforms.js';
import {missingArchitectures, offeredArchitectures} from '../docker/platform-guard.js';
import type {Logger} from '../logger.js';

/** What the platform guard needs of a builder: its name, its nodes' platforms, and where it came from. */
export interface PlatformHolder {
  name: string;
  nodes: {platforms: string[]}[];
  /** Profile the builders came from; undefined for a builder given by the user. */
  profile?: string;
  /** Set when it is a local fallback builder. */
  fallback?: string;
}

/** Platforms one input, flag or bake target asks for. */
export interface PlatformRequest {
  /** Who asks, as the message names it: `Input "platforms"`, `--platforms`, `Bake target "web"`. */
  who: string;
  platforms: string[];
}

/** A request that asks for architectures no node offers. */
export interface ShortRequest extends PlatformRequest {
  /** The architectures no node offers, in request order. */
  missing: string[];
  /** The requested platforms the nodes do offer. */
  kept: string[];
}

export interface PlatformGuardOpts {
  logger: Pick<Logger, 'debug' | 'warning'>;
  /** The setting checked (`"platforms"`, `--platforms`), named in the note and the default fix. */
  what: string;
  /** How to leave the missing architectures out; default `leave it out of <what>`. */
  drop?: (short: ShortRequest[], missing: string[]) => string;
}

/** Union of the platforms the nodes report; [] when none reports any. */
function offeredPlatforms(target: Pick<PlatformHolder, 'nodes'>): string[] {
  return unionPlatforms(target.nodes.map(n => n.platforms));
}

/**
 * The platform guard of the actions and the CLI (spec §1 rule 4, §7): fails before building when a request
 * asks for an architecture no node of the ready builder offers, since such a build fails with "exec format
 * error". Platforms are read the guard's way ("linux/arm64/v8" is arm64, "linux/x86_64" amd64, "linux/386"
 * runs on amd64). When the nodes report no platforms nothing can be checked: a warning for builders from a
 * profile (the service should have said), a debug line for a builder the user gave.
 */
export function guardPlatforms(target: PlatformHolder, requests: PlatformRequest[], opts: PlatformGuardOpts): void {
  const asked = requests.filter(r => r.platforms.length > 0);
  if (asked.length === 0) return;
  const offered = offeredPlatforms(target);
  if (offered.length === 0) {
    const note = `Cannot check ${opts.what} against builder "${target.name}": its nodes report no platforms`;
    if (target.profile !== undefined) opts.logger.warning(note);
    else opts.logger.debug(note);
    return;
  }
  const short: ShortRequest[] = asked.flatMap(r => {
    const missing = missingArchitectures(r.platforms, offered);
    const kept = r.platforms.filter(p => missingArchitectures([p], offered).length === 0);
    return missing.length > 0 ? [{...r, missing, kept}] : [];
  });
  if (short.length === 0) return;
  const missing = [...new Set(short.flatMap(r => r.missing))];
  const it = missing.length === 1 ? 'it' : 'them';
  const asks = short
    .map(
      r =>
        `${r.who} asks for ${r.missing.join(', ')}${r.kept.length > 0 ? ` (platforms ${r.platforms.join(',')})` : ''}`
    )
    .join('; ');
  const drop = opts.drop ? opts.drop(short, missing) : `leave ${it} out of ${opts.what}`;
  const has = [...offeredArchitectures(offered)].join(', ');
  throw new Error(
    `${asks}, but no node of builder "${target.name}" offers ${it} (it has ${has}); builds for ${it} would fail with "exec format error". Fix: ${fixFor(target, missing.join(' and '))}, or ${drop}`
  );
}

/** The fix for a builder without `archs`, by where it came from. */
function fixFor(target: PlatformHolder, archs: string): string {
  if (target.fallback !== undefined) {
    return `install QEMU for ${archs} on the runner (docker/setup-qemu-action) so the local fallback builder can emulate it`;
  }
  if (target.profile !== undefined) return `enable ${archs} on builder profile "${target.profile}" in the web UI`;
  return `use a builder with a ${archs} node (e.g. made by the configure action from a profile with ${archs} enabled)`;
}
