import {describe, expect, test} from '@jest/globals';
import {PRICE_PER_MINUTE_USD, costOf, pricePerMinute as emulatorPricePerMinute} from '@remote-builder-actions/emulator';
import {billedCost, billedMinutes} from '../../src/billing/cost.js';
import {
  BUILDER_SIZES,
  PRICE_TABLE,
  describeSize,
  isBuilderSize,
  pricePerMinute,
  type BuilderSize
} from '../../src/billing/price-table.js';

describe('price table (spec §8)', () => {
  // prettier-ignore
  test.each<[BuilderSize, string, number]>([
    ['16x32', '16 vCPU, 32 GB RAM, 100 GB disk', 0.06],
    ['32x64', '32 vCPU, 64 GB RAM, 200 GB disk', 0.12],
    ['64x128', '64 vCPU, 128 GB RAM, 200 GB disk', 0.24],
    ['96x192', '96 vCPU, 192 GB RAM, 600 GB disk', 0.36],
    ['192x384', '192 vCPU, 384 GB RAM, 600 GB disk', 0.72]
  ])('[%#] %s is "%s" at %d USD/min, twice that multi-arch', (size, text, usd) => {
    expect(describeSize(size)).toBe(text);
    expect(pricePerMinute(size, false)).toBe(usd);
    expect(pricePerMinute(size, true)).toBe(usd * 2);
  });

  test('has exactly the five sizes, and the emulator agrees on names and prices', () => {
    expect(PRICE_TABLE.map(r => r.size)).toEqual([...BUILDER_SIZES]);
    for (const size of BUILDER_SIZES) {
      expect(PRICE_PER_MINUTE_USD[size]).toBe(pricePerMinute(size, false));
      expect(emulatorPricePerMinute(size, 'amd64,arm64')).toBe(pricePerMinute(size, true));
    }
  });

  test('isBuilderSize', () => {
    expect(isBuilderSize('32x64')).toBe(true);
    expect(isBuilderSize('32X64')).toBe(false);
    expect(isBuilderSize(32)).toBe(false);
  });
});

describe('billedCost', () => {
  // prettier-ignore
  test.each<[BuilderSize, boolean, number, number]>([
    ['16x32', false, 60_000, 0.06],
    ['16x32', false, 90_000, 0.09],          // fractional minutes as they are: 1.5 min
    ['16x32', false, 1_000, 0.001],          // one second = 1/60 min, no rounding up to a minute
    ['32x64', true, 60_000, 0.24],           // multi-arch: twice 0.12
    ['192x384', false, 3_600_000, 43.2],     // an hour at 0.72
    ['192x384', true, 125_000, 3],           // 2 min 5 s at 1.44
    ['64x128', false, 0, 0]
  ])('[%#] %s multiArch=%s for %d ms → %d USD', (size, multiArch, billedMs, usd) => {
    expect(billedCost({size, multiArch, billedMs})).toBe(usd);
  });

  test('matches the emulator ledger for the same billed time', () => {
    for (const size of BUILDER_SIZES) {
      for (const ms of [1, 999, 61_234, 7_654_321]) {
        expect(billedCost({size, multiArch: false, billedMs: ms})).toBe(costOf(ms, PRICE_PER_MINUTE_USD[size]));
      }
    }
  });

  test('refuses a negative or non-finite billed time, saying what was wrong', () => {
    expect(() => billedCost({size: '16x32', multiArch: false, billedMs: -1})).toThrow(/-1 ms: it must be/);
    expect(() => billedCost({size: '16x32', multiArch: false, billedMs: NaN})).toThrow(/NaN ms/);
  });

  test('billedMinutes', () => {
    expect(billedMinutes(90_000)).toBe(1.5);
  });
});
