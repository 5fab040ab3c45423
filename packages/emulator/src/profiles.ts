import {createHash} from 'node:crypto';
import {DEFAULT_FRONT_IDLE_MS} from './builder-endpoint.js';
import {BUILDER_FRONTS, type BuilderFront, isBuilderFront} from './faults.js';
import {type Architecture, type BuilderArch, type BuilderSize, isArchitecture, isBuilderSize} from './pricing.js';

/** How a builder's `metadata.host` is written: `127.0.0.1:PORT` ('bare') or `tcp://127.0.0.1:PORT` ('tcp'). */
export type HostFormat = 'bare' | 'tcp';

/** ProfileConfig describes one builder profile the emulator serves (profiles are made in the web UI, spec §1.2). */
export interface ProfileConfig {
  name: string;
  /** Defaults to `bp_` + 16 hex digits derived from the name (stable across restarts; the emulator's choice). */
  id?: string;
  /** Defaults to ['amd64']. */
  architectures?: Architecture[];
  /** Builders returned by one assignment; defaults to 1. */
  buildersPerAssignment?: number;
  /** Defaults to '16x32'. */
  size?: BuilderSize;
  /** Time from assignment until a builder is ready; defaults to 0. */
  readyDelayMs?: number;
  /** Defaults to 'bare'. */
  hostFormat?: HostFormat;
  /**
   * The host name put into the details' `metadata.host` and the server certificate's subjectAltName;
   * defaults to '127.0.0.1'. The listener still binds 127.0.0.1: another name needs a resolver or a proxy
   * that maps it there.
   */
  hostName?: string;
  /** How the builders' TLS front behaves (see BUILDER_FRONTS); defaults to 'keep-open' (a bare BuildKit). */
  front?: BuilderFront;
  /** 'close-idle' front: how long a connection may stay silent after the handshake; defaults to 200 ms. */
  frontIdleMs?: number;
}

/** Every key of a ProfileConfig: a profiles file with another key is refused (config-file.ts). */
export const PROFILE_CONFIG_KEYS: readonly (keyof ProfileConfig)[] = [
  'name',
  'id',
  'architectures',
  'buildersPerAssignment',
  'size',
  'readyDelayMs',
  'hostFormat',
  'hostName',
  'front',
  'frontIdleMs'
];

/** Profile is a ProfileConfig with every default filled in. */
export interface Profile {
  readonly name: string;
  readonly id: string;
  readonly architectures: readonly Architecture[];
  readonly buildersPerAssignment: number;
  readonly size: BuilderSize;
  readonly readyDelayMs: number;
  readonly hostFormat: HostFormat;
  readonly hostName: string;
  readonly front: BuilderFront;
  readonly frontIdleMs: number;
}

/** Default `hostName` of a profile. */
export const DEFAULT_HOST_NAME = '127.0.0.1';

/** A DNS name or an IPv4 address: dot-separated labels of letters, digits and inner hyphens. */
const HOST_NAME = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i;

/** The `builder_profiles[]` item of the listing (fields beyond id are not shown in the spec; the emulator's choice). */
export interface ProfileListItem {
  id: string;
  name: string;
  architectures: Architecture[];
  size: BuilderSize;
}

/** One page of the profile listing. */
export interface ProfilePage {
  builder_profiles: ProfileListItem[];
  page: number;
  per_page: number;
  total: number;
}

/** Default and maximum `per_page` of the listing (spec §8: maximum not shown; the emulator's choice). */
export const DEFAULT_PER_PAGE = 20;
export const MAX_PER_PAGE = 100;

/** Fills in the defaults of one profile and validates it; throws a descriptive Error. */
export function resolveProfile(config: ProfileConfig): Profile {
  const where = `profile ${JSON.stringify(config?.name)}`;
  if (typeof config !== 'object' || config === null) throw new Error('Invalid profile: expected an object');
  if (typeof config.name !== 'string' || config.name.trim() === '') {
    throw new Error('Invalid profile: "name" must be a non-empty string');
  }
  if (config.id !== undefined && (typeof config.id !== 'string' || config.id === '' || /[/?#\s]/.test(config.id))) {
    throw new Error(`Invalid ${where}: "id" must be a non-empty string without '/', '?', '#' or spaces`);
  }
  const architectures = config.architectures ?? ['amd64'];
  if (!Array.isArray(architectures) || architectures.length === 0 || !architectures.every(isArchitecture)) {
    throw new Error(`Invalid ${where}: "architectures" must be a non-empty list of 'amd64' and 'arm64'`);
  }
  const perAssignment = config.buildersPerAssignment ?? 1;
  if (!Number.isInteger(perAssignment) || perAssignment < 1) {
    throw new Error(`Invalid ${where}: "buildersPerAssignment" must be a positive integer`);
  }
  const size = config.size ?? '16x32';
  if (!isBuilderSize(size)) {
    throw new Error(`Invalid ${where}: "size" must be one of 16x32, 32x64, 64x128, 96x192, 192x384`);
  }
  const readyDelayMs = config.readyDelayMs ?? 0;
  if (typeof readyDelayMs !== 'number' || !Number.isFinite(readyDelayMs) || readyDelayMs < 0) {
    throw new Error(`Invalid ${where}: "readyDelayMs" must be a non-negative number`);
  }
  const hostFormat = config.hostFormat ?? 'bare';
  if (hostFormat !== 'bare' && hostFormat !== 'tcp') {
    throw new Error(`Invalid ${where}: "hostFormat" must be 'bare' or 'tcp'`);
  }
  const hostName = config.hostName ?? DEFAULT_HOST_NAME;
  if (typeof hostName !== 'string' || !HOST_NAME.test(hostName)) {
    throw new Error(`Invalid ${where}: "hostName" must be a DNS name or an IPv4 address`);
  }
  const front = config.front ?? 'keep-open';
  if (!isBuilderFront(front)) {
    throw new Error(`Invalid ${where}: "front" must be one of ${BUILDER_FRONTS.join(', ')}`);
  }
  const frontIdleMs = config.frontIdleMs ?? DEFAULT_FRONT_IDLE_MS;
  if (typeof frontIdleMs !== 'number' || !Number.isFinite(frontIdleMs) || frontIdleMs <= 0) {
    throw new Error(`Invalid ${where}: "frontIdleMs" must be a positive number`);
  }
  return {
    name: config.name,
    id: config.id ?? defaultProfileId(config.name),
    // Canonical order (amd64 first) without duplicates.
    architectures: (['amd64', 'arm64'] as const).filter(a => architectures.includes(a)),
    buildersPerAssignment: perAssignment,
    size,
    readyDelayMs,
    hostFormat,
    hostName,
    front,
    frontIdleMs
  };
}

/** The generated id of a profile without one: `bp_` + the first 16 hex digits of sha256(name). */
export function defaultProfileId(name: string): string {
  return `bp_${createHash('sha256').update(name).digest('hex').slice(0, 16)}`;
}

/**
 * The architecture of each builder of one assignment: with at least as many builders as architectures,
 * builder i gets architectures[i % n]; otherwise every builder runs all of them (a multi-arch builder).
 */
export function builderArchitectures(profile: Profile): BuilderArch[] {
  const archs = profile.architectures;
  const n = profile.buildersPerAssignment;
  if (n >= archs.length) return Array.from({length: n}, (_, i) => archs[i % archs.length] as Architecture);
  return Array.from({length: n}, () => archs.join(',') as BuilderArch);
}

export interface ProfileCatalogOpts {
  profiles: ProfileConfig[];
}

/** ProfileCatalog holds the configured profiles and their cache-reset times. */
export class ProfileCatalog {
  readonly #profiles: Profile[];
  readonly #cacheResets = new Map<string, number>();

  constructor(opts: ProfileCatalogOpts) {
    this.#profiles = opts.profiles.map(resolveProfile);
    const names = new Set<string>();
    const ids = new Set<string>();
    for (const p of this.#profiles) {
      if (names.has(p.name)) throw new Error(`Duplicate profile name ${JSON.stringify(p.name)}`);
      if (ids.has(p.id)) throw new Error(`Duplicate profile id ${JSON.stringify(p.id)}`);
      names.add(p.name);
      ids.add(p.id);
    }
  }

  /** Every profile, in configuration order. */
  all(): Profile[] {
    return [...this.#profiles];
  }

  byName(name: string): Profile | undefined {
    return this.#profiles.find(p => p.name === name);
  }

  byId(id: string): Profile | undefined {
    return this.#profiles.find(p => p.id === id);
  }

  /** One 1-based page of the listing; `perPage` is clamped to 1…MAX_PER_PAGE. */
  page(page: number, perPage: number): ProfilePage {
    const size = Math.min(Math.max(1, perPage), MAX_PER_PAGE);
    const start = (Math.max(1, page) - 1) * size;
    return {
      builder_profiles: this.#profiles.slice(start, start + size).map(p => ({
        id: p.id,
        name: p.name,
        architectures: [...p.architectures],
        size: p.size
      })),
      page: Math.max(1, page),
      per_page: size,
      total: this.#profiles.length
    };
  }

  /** Records a cache reset (spec §3 rule 4: it changes no other state). */
  resetCache(id: string, at: number): void {
    this.#cacheResets.set(id, at);
  }

  /** When the profile's cache was last reset, if ever. */
  lastCacheReset(id: string): number | undefined {
    return this.#cacheResets.get(id);
  }
}
