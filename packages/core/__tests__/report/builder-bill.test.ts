import {describe, expect, test} from '@jest/globals';
import {billBuilder, teardownOf, totalBill, type BuilderBill} from '../../src/report/builder-bill.js';
import type {BuilderRecord} from '../../src/report/run-record.js';

const T0 = Date.UTC(2026, 0, 16, 12, 0, 0);
const END = T0 + 600_000;
const builder = (over: Partial<BuilderRecord>): BuilderRecord => ({id: 'b', profile: 'p', assignedAt: T0, ...over});

describe('billBuilder', () => {
  // prettier-ignore
  test.each<[string, Partial<BuilderRecord>, Partial<BuilderBill>]>([
    ['torn down: exact, assignment → teardown',
      {size: '16x32', multiArch: false, tornDownAt: T0 + 90_000},
      {teardown: 'torn-down', stillBilled: false, billedMs: 90_000, bound: 'exact', cost: 0.09, usdPerMinute: 0.06}],
    ['multi-arch: twice the price',
      {size: '16x32', multiArch: true, tornDownAt: T0 + 90_000, teardown: 'torn-down'},
      {billedMs: 90_000, cost: 0.18, usdPerMinute: 0.12}],
    ['already gone: at most assignment → teardown call',
      {size: '32x64', multiArch: false, tornDownAt: T0 + 60_000, teardown: 'already-gone'},
      {teardown: 'already-gone', stillBilled: false, billedMs: 60_000, bound: 'at-most', cost: 0.12}],
    ['teardown failed: still billed, at least until the step ended',
      {size: '32x64', multiArch: false, tornDownAt: T0 + 60_000, teardown: 'failed'},
      {teardown: 'failed', stillBilled: true, billedMs: 600_000, bound: 'at-least', cost: 1.2}],
    ['no teardown recorded: pending, still billed',
      {size: '16x32', multiArch: false},
      {teardown: 'pending', stillBilled: true, billedMs: 600_000, bound: 'at-least', cost: 0.6}],
    ['size unknown: no cost',
      {multiArch: false, tornDownAt: T0 + 1_000},
      {billedMs: 1_000, unknownCost: 'size unknown'}],
    ['architecture unknown: no cost',
      {size: '16x32', tornDownAt: T0 + 1_000},
      {billedMs: 1_000, unknownCost: 'architecture unknown'}]
  ])('[%#] %s', (_why, over, expected) => {
    const bill = billBuilder(builder(over), END);
    expect(bill).toMatchObject(expected);
    // A cost is either priced or unknown, never both.
    expect(bill.cost === undefined).toBe(bill.unknownCost !== undefined);
  });

  test('teardownOf defaults', () => {
    expect(teardownOf(builder({}))).toBe('pending');
    expect(teardownOf(builder({tornDownAt: T0}))).toBe('torn-down');
    expect(teardownOf(builder({tornDownAt: T0, teardown: 'already-gone'}))).toBe('already-gone');
  });
});

describe('totalBill', () => {
  const exact = billBuilder(builder({id: 'a', size: '16x32', multiArch: false, tornDownAt: T0 + 60_000}), END);
  const gone = billBuilder(
    builder({id: 'g', size: '16x32', multiArch: false, tornDownAt: T0 + 30_000, teardown: 'already-gone'}),
    END
  );
  const live = billBuilder(builder({id: 'l', size: '16x32', multiArch: false, teardown: 'failed'}), END);
  const unsized = billBuilder(builder({id: 'u', tornDownAt: T0 + 60_000}), END);

  // minutes: the billed ms over 60 000, worked by hand (660 000 ms = 11 min).
  // prettier-ignore
  test.each<[string, BuilderBill[], {billedMs: number; minutes: number; bound: string; cost?: number; unknown: string[]}]>([
    ['nothing assigned', [], {billedMs: 0, minutes: 0, bound: 'exact', cost: 0, unknown: []}],
    ['exact', [exact, exact], {billedMs: 120_000, minutes: 2, bound: 'exact', cost: 0.12, unknown: []}],
    ['at most', [exact, gone], {billedMs: 90_000, minutes: 1.5, bound: 'at-most', cost: 0.09, unknown: []}],
    ['at least', [exact, live], {billedMs: 660_000, minutes: 11, bound: 'at-least', cost: 0.66, unknown: []}],
    ['mixed bounds: about', [gone, live], {billedMs: 630_000, minutes: 10.5, bound: 'about', cost: 0.63, unknown: []}],
    ['one cost unknown: no total cost', [exact, unsized], {billedMs: 120_000, minutes: 2, bound: 'exact', unknown: ['u']}]
  ])('[%#] %s', (_why, bills, expected) => {
    const total = totalBill(bills);
    expect(total.billedMs).toBe(expected.billedMs);
    expect(total.billedMinutes).toBe(expected.minutes);
    expect(total.bound).toBe(expected.bound);
    expect(total.cost).toBe(expected.cost);
    expect(total.unknown.map(u => u.id)).toEqual(expected.unknown);
  });
});
