import {expect, test} from '@jest/globals';
import {type BuilderArch, type BuilderSize, isBuilderSize, pricePerMinute} from '../src/pricing.js';

test.each<[number, BuilderSize, BuilderArch, number]>([
  [1, '16x32', 'amd64', 0.06],
  [2, '32x64', 'arm64', 0.12],
  [3, '64x128', 'amd64', 0.24],
  [4, '96x192', 'amd64', 0.36],
  [5, '192x384', 'arm64', 0.72],
  [6, '16x32', 'amd64,arm64', 0.12],
  [7, '192x384', 'amd64,arm64', 1.44]
])('%d: %s %s costs %d USD per minute', (_n, size, arch, price) => {
  expect(pricePerMinute(size, arch)).toBeCloseTo(price, 10);
});

test('isBuilderSize accepts only the spec sizes', () => {
  expect(isBuilderSize('16x32')).toBe(true);
  expect(isBuilderSize('8x16')).toBe(false);
  expect(isBuilderSize(16)).toBe(false);
});
