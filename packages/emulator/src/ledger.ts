import type {EmulatorClock} from './clock.js';
import {type BuilderArch, type BuilderSize, pricePerMinute} from './pricing.js';

/** Why a builder stopped being billed. 'emulator-shutdown' means it was still assigned when the emulator closed. */
export type TerminationReason = 'teardown' | 'idle-timeout' | 'emulator-shutdown';

/** LedgerEntry is the billing record of one builder. Times are epoch milliseconds. */
export interface LedgerEntry {
  builderId: string;
  profile: string;
  profileId: string;
  size: BuilderSize;
  arch: BuilderArch;
  /** USD per minute (spec §8; doubled for a multi-architecture builder). */
  pricePerMinute: number;
  assignedAt: number;
  readyAt?: number;
  /** When the builder went to 'failed' (an emulator addition; billing continues until termination). */
  failedAt?: number;
  terminatedAt?: number;
  reason?: TerminationReason;
  /** Milliseconds from assignment to termination, or to now for a live builder (spec §3: billed until terminated). */
  billedMs: number;
  /** USD; see `costOf`. */
  cost: number;
}

/**
 * Cost of `billedMs` at `perMinute` USD. The emulator's choice: billing is per millisecond (no rounding up to
 * whole minutes) and the result is rounded to 6 decimal places (a millionth of a dollar) to hide float noise.
 */
export function costOf(billedMs: number, perMinute: number): number {
  return roundUsd((billedMs / 60_000) * perMinute);
}

/** Rounds a USD amount to 6 decimal places. */
export function roundUsd(usd: number): number {
  return Math.round(usd * 1e6) / 1e6;
}

/** What the ledger needs to open an entry. */
export interface LedgerOpenParams {
  builderId: string;
  profile: string;
  profileId: string;
  size: BuilderSize;
  arch: BuilderArch;
  assignedAt: number;
}

export interface LedgerOpts {
  clock: EmulatorClock;
}

type StoredEntry = Omit<LedgerEntry, 'billedMs' | 'cost'>;

/** Ledger records every builder ever assigned, in assignment order, and prices it. */
export class Ledger {
  readonly #clock: EmulatorClock;
  readonly #entries = new Map<string, StoredEntry>();

  constructor(opts: LedgerOpts) {
    this.#clock = opts.clock;
  }

  open(params: LedgerOpenParams): void {
    this.#entries.set(params.builderId, {...params, pricePerMinute: pricePerMinute(params.size, params.arch)});
  }

  markReady(builderId: string, at: number): void {
    const e = this.#entries.get(builderId);
    if (e && e.readyAt === undefined) e.readyAt = at;
  }

  markFailed(builderId: string, at: number): void {
    const e = this.#entries.get(builderId);
    if (e && e.failedAt === undefined) e.failedAt = at;
  }

  /** Stops billing; a second call keeps the first time and reason. */
  terminate(builderId: string, at: number, reason: TerminationReason): void {
    const e = this.#entries.get(builderId);
    if (e && e.terminatedAt === undefined) {
      e.terminatedAt = at;
      e.reason = reason;
    }
  }

  /** Every entry, billed up to now for live builders. Returns copies. */
  entries(): LedgerEntry[] {
    const now = this.#clock.now();
    return [...this.#entries.values()].map(e => {
      const billedMs = Math.max(0, (e.terminatedAt ?? now) - e.assignedAt);
      return {...e, billedMs, cost: costOf(billedMs, e.pricePerMinute)};
    });
  }

  /** Entries of builders not terminated. */
  assigned(): LedgerEntry[] {
    return this.entries().filter(e => e.terminatedAt === undefined);
  }

  /** Sum of every entry's cost, rounded like `costOf`. */
  totalCost(): number {
    return roundUsd(this.entries().reduce((sum, e) => sum + e.cost, 0));
  }
}
