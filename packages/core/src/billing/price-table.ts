/**
 * The service's builder price table (spec §8, "Builder pricing (per minute, by builder size)"). A size is
 * named `<vCPU>x<GB RAM>`, the notation the emulator uses too (packages/emulator/src/pricing.ts); core
 * keeps its own copy because it must not depend on the emulator.
 */

/** One row of the price table. */
export interface BuilderSizeRow {
  /** `<vCPU>x<GB RAM>`, e.g. '32x64'. */
  size: BuilderSize;
  vcpu: number;
  memoryGb: number;
  diskGb: number;
  /** USD per minute of a single-architecture builder of this size. */
  usdPerMinute: number;
}

/** The five builder sizes of spec §8. */
export const BUILDER_SIZES = ['16x32', '32x64', '64x128', '96x192', '192x384'] as const;

/** One of the five builder sizes of spec §8. */
export type BuilderSize = (typeof BUILDER_SIZES)[number];

/** Spec §8, row by row: "16 vCPU, 32 GB RAM, 100 GB disk | 0.06" … */
export const PRICE_TABLE: readonly BuilderSizeRow[] = [
  {size: '16x32', vcpu: 16, memoryGb: 32, diskGb: 100, usdPerMinute: 0.06},
  {size: '32x64', vcpu: 32, memoryGb: 64, diskGb: 200, usdPerMinute: 0.12},
  {size: '64x128', vcpu: 64, memoryGb: 128, diskGb: 200, usdPerMinute: 0.24},
  {size: '96x192', vcpu: 96, memoryGb: 192, diskGb: 600, usdPerMinute: 0.36},
  {size: '192x384', vcpu: 192, memoryGb: 384, diskGb: 600, usdPerMinute: 0.72}
];

/** True when `value` is one of BUILDER_SIZES. */
export function isBuilderSize(value: unknown): value is BuilderSize {
  return typeof value === 'string' && (BUILDER_SIZES as readonly string[]).includes(value);
}

/** The table row of a size. */
export function sizeRow(size: BuilderSize): BuilderSizeRow {
  const row = PRICE_TABLE.find(r => r.size === size);
  if (!row) throw new Error(`Unknown builder size "${size}": expected one of ${BUILDER_SIZES.join(', ')}`);
  return row;
}

/** USD per minute of one builder; spec §8: "Multi-architecture builders cost twice the single-architecture price". */
export function pricePerMinute(size: BuilderSize, multiArch: boolean): number {
  return sizeRow(size).usdPerMinute * (multiArch ? 2 : 1);
}

/** Human text of a size, as the spec's table writes it: "32 vCPU, 64 GB RAM, 200 GB disk". */
export function describeSize(size: BuilderSize): string {
  const r = sizeRow(size);
  return `${r.vcpu} vCPU, ${r.memoryGb} GB RAM, ${r.diskGb} GB disk`;
}
