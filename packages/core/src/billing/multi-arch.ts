/** What we know of one builder's architectures, as the service reported them. */
export interface ArchFacts {
  /** The builder's `arch` field: "amd64", "amd64,arm64", ["amd64", "arm64"], … */
  arch?: unknown;
  /**
   * Platforms the service says this builder runs natively ("linux/amd64", …). Do not pass the platforms
   * `docker buildx inspect` lists: BuildKit adds the ones it can emulate with QEMU (an amd64 node with
   * binfmt lists linux/arm64 too), which says nothing about what the service bills.
   */
  platforms?: unknown;
}

const ALIASES: Readonly<Record<string, string>> = {
  x86_64: 'amd64',
  'x86-64': 'amd64',
  x64: 'amd64',
  amd64: 'amd64',
  aarch64: 'arm64',
  arm64: 'arm64',
  'arm64/v8': 'arm64'
};

function normalise(arch: string): string {
  const a = arch.trim().toLowerCase();
  return ALIASES[a] ?? a;
}

function list(v: unknown): string[] | undefined {
  if (typeof v === 'string') return v.split(/[\s,;+|]+/).filter(s => s !== '');
  if (Array.isArray(v) && v.every(s => typeof s === 'string')) return v as string[];
  return undefined;
}

function archsOf(v: unknown): Set<string> | undefined {
  const items = list(v);
  if (!items || items.length === 0) return undefined;
  return new Set(items.map(normalise));
}

function platformArchsOf(v: unknown): Set<string> | undefined {
  const items = list(v);
  if (!items || items.length === 0) return undefined;
  // "linux/arm64/v8" → "arm64/v8"; a bare "arm64" is taken as an architecture.
  return new Set(items.map(p => normalise(p.includes('/') ? p.split('/').slice(1).join('/') : p)));
}

/**
 * Whether a builder is a multi-architecture builder, the kind spec §8 bills at twice the price: its own
 * `arch` (or, without one, its platforms) covers both amd64 and arm64. Only this builder's facts count: a
 * single-architecture builder that is one node of a two-node assignment (one amd64, one arm64) is not
 * multi-architecture, and is billed at the single price. Returns undefined when nothing readable is known,
 * or when `arch` and `platforms` disagree: the price is then unknown, not guessed.
 */
export function isMultiArch(facts: ArchFacts): boolean | undefined {
  const covers = (s: Set<string>): boolean => s.has('amd64') && s.has('arm64');
  const fromArch = archsOf(facts.arch);
  const fromPlatforms = platformArchsOf(facts.platforms);
  if (fromArch && fromPlatforms && covers(fromArch) !== covers(fromPlatforms)) return undefined;
  const known = fromArch ?? fromPlatforms;
  return known ? covers(known) : undefined;
}
