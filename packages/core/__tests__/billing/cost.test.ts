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
  // The spec §8 table as written, and the multi-arch price doubled by hand.
  // prettier-ignore
  test.each<[BuilderSize, string, number, number]>([
    ['16x32', '16 vCPU, 32 GB RAM, 100 GB disk', 0.06, 0.12],
    ['32x64', '32 vCPU, 64 GB RAM, 200 GB disk', 0.12, 0.24],
    ['64x128', '64 vCPU, 128 GB RAM, 200 GB disk', 0.24, 0.48],
    ['96x192', '96 vCPU, 192 GB RAM, 600 GB disk', 0.36, 0.72],
    ['192x384', '192 vCPU, 384 GB RAM, 600 GB disk', 0.72, 1.44]
  ])('[%#] %s is "%s" at %d USD/min, %d multi-arch; the emulator charges the same', (size, text, usd, multiUsd) => {
    expect(describeSize(size)).toBe(text);
    expect(pricePerMinute(size, false)).toBe(usd);
    expect(pricePerMinute(size, true)).toBe(multiUsd);
    expect(PRICE_PER_MINUTE_USD[size]).toBe(usd);
    expect(emulatorPricePerMinute(size, 'amd64,arm64')).toBe(multiUsd);
  });

  test('has exactly the five sizes of the spec, in its order', () => {
    expect(PRICE_TABLE.map(r => r.size)).toEqual(['16x32', '32x64', '64x128', '96x192', '192x384']);
    expect(BUILDER_SIZES).toEqual(['16x32', '32x64', '64x128', '96x192', '192x384']);
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

  // Worked by hand: a price of p USD/min is p/60 000 USD per ms, i.e. 1, 2, 4, 6 and 12 millionths of a
  // USD per ms for 0.06, 0.12, 0.24, 0.36 and 0.72; the cost is the billed ms times that.
  // prettier-ignore
  test.each<[BuilderSize, number, number]>([
    ['16x32', 1, 0.000001], ['16x32', 999, 0.000999], ['16x32', 61_234, 0.061234], ['16x32', 7_654_321, 7.654321],
    ['32x64', 1, 0.000002], ['32x64', 999, 0.001998], ['32x64', 61_234, 0.122468], ['32x64', 7_654_321, 15.308642],
    ['64x128', 1, 0.000004], ['64x128', 999, 0.003996], ['64x128', 61_234, 0.244936], ['64x128', 7_654_321, 30.617284],
    ['96x192', 1, 0.000006], ['96x192', 999, 0.005994], ['96x192', 61_234, 0.367404], ['96x192', 7_654_321, 45.925926],
    ['192x384', 1, 0.000012], ['192x384', 999, 0.011988], ['192x384', 61_234, 0.734808], ['192x384', 7_654_321, 91.851852]
  ])('[%#] %s for %d ms: %d USD, in our report and in the emulator ledger alike', (size, billedMs, usd) => {
    expect(billedCost({size, multiArch: false, billedMs})).toBe(usd);
    expect(costOf(billedMs, PRICE_PER_MINUTE_USD[size])).toBe(usd);
  });

  test('refuses a negative or non-finite billed time, saying what was wrong', () => {
    expect(() => billedCost({size: '16x32', multiArch: false, billedMs: -1})).toThrow(/-1 ms: it must be/);
    expect(() => billedCost({size: '16x32', multiArch: false, billedMs: NaN})).toThrow(/NaN ms/);
  });

  test('billedMinutes', () => {
    expect(billedMinutes(90_000)).toBe(1.5);
  });
});
