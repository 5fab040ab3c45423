import {describe, expect, test} from '@jest/globals';
import {byteLength, cutText, formatBytes, shareBudget} from '../../src/report/summary-size.js';

describe('cutText', () => {
  test('a text that fits is kept whole', () => {
    expect(cutText('a\nb', 3)).toEqual({text: 'a\nb', cutBytes: 0, cutLines: 0});
  });

  test('cut at the end of the last line that fits, counting what is left out', () => {
    expect(cutText('line1\nline2\nline3', 14)).toEqual({text: 'line1\nline2', cutBytes: 6, cutLines: 1});
    expect(cutText('line1\nline2\nline3', 6)).toEqual({text: 'line1', cutBytes: 12, cutLines: 2});
  });

  test('a first line longer than the room is cut inside, never inside a UTF-8 character', () => {
    const cut = cutText('ééé', 3);
    expect(cut.text).toBe('é');
    expect(cut.cutBytes).toBe(4);
    expect(byteLength(cut.text)).toBeLessThanOrEqual(3);
  });

  test('bytes an earlier reader left out are added', () => {
    expect(cutText('abc', 10, 100)).toEqual({text: 'abc', cutBytes: 100, cutLines: 0});
    expect(cutText('ab\ncd', 2, 100)).toEqual({text: 'ab', cutBytes: 103, cutLines: 1});
  });
});

describe('shareBudget', () => {
  test('short texts keep all they need; the longest get the rest, evenly', () => {
    expect(shareBudget([10, 1000, 1000], 610)).toEqual([10, 300, 300]);
    expect(shareBudget([10, 20], 1000)).toEqual([10, 20]);
    expect(shareBudget([0, 500], 100)).toEqual([0, 100]);
  });

  test('never more than the budget, never below zero', () => {
    expect(shareBudget([5, 5], -10)).toEqual([0, 0]);
    const shares = shareBudget([7, 999, 3, 400], 401);
    expect(shares.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(401);
  });
});

test('formatBytes', () => {
  expect(formatBytes(512)).toBe('512 bytes');
  expect(formatBytes(48_213)).toBe('47.08 KiB');
  expect(formatBytes(3 << 20)).toBe('3 MiB');
});
