import {describe, expect, test} from '@jest/globals';
import {formatClock, formatDateTime, formatDuration} from '../../src/report/time-format.js';

describe('formatDuration', () => {
  // prettier-ignore
  test.each([
    [0, '0.0 s'],
    [49, '0.0 s'],
    [12_345, '12.3 s'],
    [59_940, '59.9 s'],
    [59_960, '1 min'],          // 59.96 s rounds to 60.0 s: shown in minutes, not "60.0 s"
    [60_000, '1 min'],
    [125_000, '2 min 5 s'],
    [125_499, '2 min 5 s'],
    [3_600_000, '1 h'],
    [3_605_000, '1 h 5 s'],
    [3_800_000, '1 h 3 min 20 s'],
    [-5_000, '0.0 s'],
    [Number.NaN, '0.0 s']
  ])('[%#] %d ms → %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});

describe('clock times, UTC', () => {
  test('formatClock and formatDateTime', () => {
    const t = Date.UTC(2026, 0, 16, 9, 3, 7, 900);
    expect(formatClock(t)).toBe('09:03:07Z');
    expect(formatDateTime(t)).toBe('2026-01-16 09:03:07Z');
  });
});
