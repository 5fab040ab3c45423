import {billedCost, billedMinutes} from '../billing/cost.js';
import {pricePerMinute} from '../billing/price-table.js';
import type {BuilderRecord, TeardownOutcome} from './run-record.js';

/**
 * How sure a billed time is. 'exact': assignment → teardown. 'at-most': the builder was already gone when
 * we tore it down, so billing stopped earlier (when, we do not know). 'at-least': the builder is still
 * billed; the time counts to the end of the step. 'about': a total mixing 'at-most' and 'at-least'.
 */
export type Bound = 'exact' | 'at-most' | 'at-least' | 'about';

/** Why a cost is not known. */
export type UnknownCost = 'size unknown' | 'architecture unknown';

/** The bill of one builder. */
export interface BuilderBill {
  id: string;
  teardown: TeardownOutcome;
  /** True while the service may still bill it (teardown failed or did not run). */
  stillBilled: boolean;
  billedMs: number;
  bound: Bound;
  /** USD, when size and architecture are known. */
  cost?: number;
  /** USD per minute the cost is based on. */
  usdPerMinute?: number;
  unknownCost?: UnknownCost;
}

/** A builder's teardown outcome: as recorded, else torn down when tornDownAt is set, else pending. */
export function teardownOf(b: BuilderRecord): TeardownOutcome {
  return b.teardown ?? (b.tornDownAt !== undefined ? 'torn-down' : 'pending');
}

/**
 * What one builder was billed: spec §3 bills from assignment until termination. A builder not torn down is
 * billed up to `endedAt` and counting.
 */
export function billBuilder(b: BuilderRecord, endedAt: number): BuilderBill {
  const teardown = teardownOf(b);
  const stillBilled = teardown === 'failed' || teardown === 'pending';
  const end = stillBilled || b.tornDownAt === undefined ? endedAt : b.tornDownAt;
  const billedMs = Math.max(0, end - b.assignedAt);
  const bound: Bound = stillBilled ? 'at-least' : teardown === 'already-gone' ? 'at-most' : 'exact';
  const bill: BuilderBill = {id: b.id, teardown, stillBilled, billedMs, bound};
  if (b.size === undefined) bill.unknownCost = 'size unknown';
  else if (b.multiArch === undefined) bill.unknownCost = 'architecture unknown';
  else {
    bill.cost = billedCost({size: b.size, multiArch: b.multiArch, billedMs});
    bill.usdPerMinute = pricePerMinute(b.size, b.multiArch);
  }
  return bill;
}

/** The total of several bills. */
export interface TotalBill {
  billedMs: number;
  billedMinutes: number;
  bound: Bound;
  /** USD, only when every builder's cost is known. */
  cost?: number;
  /** Builders whose cost is unknown, with why. */
  unknown: {id: string; why: UnknownCost}[];
}

/** Sums bills; the cost only when every cost is known ("never guess a cost"). */
export function totalBill(bills: readonly BuilderBill[]): TotalBill {
  const billedMs = bills.reduce((sum, b) => sum + b.billedMs, 0);
  const bounds = new Set(bills.map(b => b.bound).filter(b => b !== 'exact'));
  const [only] = bounds;
  const bound: Bound = bounds.size === 0 ? 'exact' : bounds.size === 1 && only ? only : 'about';
  const unknown = bills.flatMap(b => (b.unknownCost ? [{id: b.id, why: b.unknownCost}] : []));
  const total: TotalBill = {billedMs, billedMinutes: billedMinutes(billedMs), bound, unknown};
  if (unknown.length === 0) total.cost = Math.round(bills.reduce((sum, b) => sum + (b.cost ?? 0), 0) * 1e6) / 1e6;
  return total;
}
