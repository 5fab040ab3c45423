import {type BuilderSize, pricePerMinute} from './price-table.js';

export interface BilledCostOpts {
  size: BuilderSize;
  /** A multi-architecture builder costs twice the single-architecture price (spec §8). */
  multiArch: boolean;
  /** Billed time in ms: assignment → termination (spec §3: "Billing runs from assignment until termination"). */
  billedMs: number;
}

/** Billed minutes, fractional: 90 000 ms → 1.5. */
export function billedMinutes(billedMs: number): number {
  return billedMs / 60_000;
}

/**
 * What a builder cost, in USD: the per-minute price of its size (doubled for a multi-architecture
 * builder) × the billed minutes. The spec prices per minute but does not say how a part of a minute is
 * charged (per second? rounded up to the minute?), so we charge fractional minutes as they are, exactly as
 * the emulator's ledger does, and the report shows the basis (price per minute × minutes) so anyone can
 * redo the sum under another rounding. The result is rounded to a millionth of a dollar (float noise only).
 */
export function billedCost(opts: BilledCostOpts): number {
  if (!Number.isFinite(opts.billedMs) || opts.billedMs < 0) {
    throw new RangeError(`Cannot price a billed time of ${opts.billedMs} ms: it must be a finite number ≥ 0`);
  }
  const usd = pricePerMinute(opts.size, opts.multiArch) * billedMinutes(opts.billedMs);
  return Math.round(usd * 1e6) / 1e6;
}
