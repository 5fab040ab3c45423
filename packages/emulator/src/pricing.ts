/** Builder machine sizes from spec §8, as `<vCPU>x<GB RAM>`. */
export const BUILDER_SIZES = ['16x32', '32x64', '64x128', '96x192', '192x384'] as const;

/** One of the builder sizes of spec §8. */
export type BuilderSize = (typeof BUILDER_SIZES)[number];

/** Architectures a profile can enable. */
export const ARCHITECTURES = ['amd64', 'arm64'] as const;

/** One CPU architecture. */
export type Architecture = (typeof ARCHITECTURES)[number];

/** The architecture of one builder: a single one, or both for a multi-architecture builder. */
export type BuilderArch = Architecture | 'amd64,arm64';

/** Price per minute in USD by size (spec §8). */
export const PRICE_PER_MINUTE_USD: Readonly<Record<BuilderSize, number>> = {
  '16x32': 0.06,
  '32x64': 0.12,
  '64x128': 0.24,
  '96x192': 0.36,
  '192x384': 0.72
};

/** True when `value` is one of BUILDER_SIZES. */
export function isBuilderSize(value: unknown): value is BuilderSize {
  return typeof value === 'string' && (BUILDER_SIZES as readonly string[]).includes(value);
}

/** True when `value` is one of ARCHITECTURES. */
export function isArchitecture(value: unknown): value is Architecture {
  return typeof value === 'string' && (ARCHITECTURES as readonly string[]).includes(value);
}

/** True for a builder that runs more than one architecture. */
export function isMultiArch(arch: BuilderArch): boolean {
  return arch.includes(',');
}

/** Per-minute price of one builder; spec §8: a multi-architecture builder costs twice the single-architecture price. */
export function pricePerMinute(size: BuilderSize, arch: BuilderArch): number {
  return PRICE_PER_MINUTE_USD[size] * (isMultiArch(arch) ? 2 : 1);
}
