import {describe, expect, test} from '@jest/globals';
import {DEFAULT_RETRY_POLICY, parseRetryAfterMs, RetryPolicy, type AttemptFailure} from '../../src/api/retry-policy.js';

const NOW = Date.UTC(2026, 0, 1, 12, 0, 0);

describe('RetryPolicy', () => {
  test('defaults: 4 attempts, 200 ms base, 5 s cap, 30 s Retry-After cap', () => {
    expect(new RetryPolicy().opts).toEqual({
      maxAttempts: 4,
      baseDelayMs: 200,
      maxDelayMs: 5000,
      maxRetryAfterMs: 30000
    });
    expect(DEFAULT_RETRY_POLICY).toEqual(new RetryPolicy().opts);
  });

  test('undefined overrides keep the defaults', () => {
    expect(new RetryPolicy({maxAttempts: undefined, baseDelayMs: 50}).opts).toEqual({
      ...DEFAULT_RETRY_POLICY,
      baseDelayMs: 50
    });
  });

  test.each([{maxAttempts: 0}, {maxAttempts: 1.5}, {baseDelayMs: -1}, {maxDelayMs: Number.NaN}, {maxRetryAfterMs: -5}])(
    '%#. rejects %j',
    opts => {
      expect(() => new RetryPolicy(opts)).toThrow(RangeError);
    }
  );

  test.each([
    [0.5, [100, 200, 400, 800, 1600, 2500, 2500]],
    [0, [0, 0, 0, 0, 0, 0, 0]],
    [0.999, [199, 399, 799, 1598, 3196, 4995, 4995]],
    [1, [200, 400, 800, 1600, 3200, 5000, 5000]]
  ])('%#. backoff with random %p stays in [0, min(cap, base·2^n)]', (r, expected) => {
    const policy = new RetryPolicy({random: () => r});
    expect([1, 2, 3, 4, 5, 6, 7].map(n => policy.backoffMs(n))).toEqual(expected);
  });

  test('backoff never exceeds its ceiling, whatever random returns', () => {
    let i = 0;
    const values = [0.13, 0.77, 0.5, 0.99, 0.01, 2, -1];
    const policy = new RetryPolicy({random: () => values[i++ % values.length]});
    for (let retry = 1; retry <= 50; retry++) {
      const ceiling = Math.min(5000, 200 * 2 ** (retry - 1));
      const d = policy.backoffMs(retry);
      expect(d).toBeGreaterThanOrEqual(0);
      expect(d).toBeLessThanOrEqual(ceiling);
    }
  });

  test('delayMs prefers a valid Retry-After (capped), else backs off', () => {
    const policy = new RetryPolicy({random: () => 0.5, maxRetryAfterMs: 10000});
    expect(policy.delayMs(1, '2', NOW)).toBe(2000);
    expect(policy.delayMs(1, '0', NOW)).toBe(0);
    expect(policy.delayMs(1, '60', NOW)).toBe(10000);
    expect(policy.delayMs(3, undefined, NOW)).toBe(400);
    expect(policy.delayMs(3, 'garbage', NOW)).toBe(400);
  });

  const f = (status?: number, code?: string, notSent?: boolean): AttemptFailure => ({status, code, notSent});
  test.each([
    [f(429), true, true],
    [f(503), true, true],
    [f(500), true, false],
    [f(502), true, false],
    [f(504), true, false],
    [f(599), true, false],
    [f(408), true, false],
    [f(501), false, false],
    [f(505), false, false],
    [f(400), false, false],
    [f(401), false, false],
    [f(404), false, false],
    [f(undefined, 'ECONNREFUSED', true), true, true],
    [f(undefined, 'ETIMEDOUT', true), true, true],
    [f(undefined, 'ECONNRESET', false), true, false],
    [f(undefined, 'ETIMEDOUT', false), true, false],
    [f(undefined, 'EABORTED', true), false, false],
    [f(undefined, 'ECLOSED', true), false, false]
  ])('%#. %j: idempotent retried=%s, non-idempotent retried=%s', (failure, idempotent, unsafe) => {
    const policy = new RetryPolicy();
    expect(policy.isRetryable(failure, true)).toBe(idempotent);
    expect(policy.isRetryable(failure, false)).toBe(unsafe);
  });
});

describe('parseRetryAfterMs', () => {
  test.each([
    ['5', 5000],
    [' 12 ', 12000],
    ['0', 0],
    [new Date(NOW + 90_000).toUTCString(), 90000],
    ['Thu, 01 Jan 2026 12:00:30 GMT', 30000],
    ['Thu, 01 Jan 2026 11:00:00 GMT', 0],
    ['', undefined],
    ['-3', undefined],
    ['1.5', undefined],
    ['2026', 2026000],
    ['+3', undefined],
    ['soon', undefined],
    [undefined, undefined]
  ])('%#. %j → %p', (value, ms) => {
    expect(parseRetryAfterMs(value, NOW)).toBe(ms);
  });
});
