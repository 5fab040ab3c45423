import {describe, expect, test} from '@jest/globals';
import {InputError} from '../src/errors.js';
import {Env, MAX_API_REQUEST_TIMEOUT_MS, parseFallbackMode, resolveRequestTimeoutMs} from '../src/inputs.js';

describe('resolveRequestTimeoutMs', () => {
  test('REMOTE_BUILDER_REQUEST_TIMEOUT_MS is the variable', () => {
    expect(Env.RequestTimeoutMs).toBe('REMOTE_BUILDER_REQUEST_TIMEOUT_MS');
    expect(MAX_API_REQUEST_TIMEOUT_MS).toBe(600_000);
  });

  // prettier-ignore
  test.each<[number, string | undefined, number]>([
    [1, undefined, 15000],
    [2, '', 15000],
    [3, '  ', 15000],
    [4, '700', 700],
    [5, ' 2500 ', 2500],
    [6, '1', 1],
    [7, '600000', 600000]
  ])('[%d] %o → %d', (_n, raw, want) => {
    expect(resolveRequestTimeoutMs(raw === undefined ? {} : {REMOTE_BUILDER_REQUEST_TIMEOUT_MS: raw}, 15000)).toBe(want);
  });

  test.each(['fast', '0', '-5', '1.5', '600001', '1e3'])('%o → InputError naming the variable and the range', raw => {
    expect(() => resolveRequestTimeoutMs({REMOTE_BUILDER_REQUEST_TIMEOUT_MS: raw}, 15000)).toThrow(
      new InputError(
        'REMOTE_BUILDER_REQUEST_TIMEOUT_MS',
        `"${raw}" is not a request time limit: use a whole number of milliseconds from 1 to 600000, or unset it for the default 15000`
      )
    );
  });
});

describe('parseFallbackMode', () => {
  test.each<[string, string]>([
    ['', 'none'],
    ['none', 'none'],
    [' None ', 'none'],
    ['local', 'local'],
    ['LOCAL', 'local']
  ])('%o → %o', (raw, want) => {
    expect(parseFallbackMode(raw)).toBe(want);
  });

  test.each(['remote', 'true', 'docker'])('%o → InputError naming both modes', raw => {
    expect(() => parseFallbackMode(raw)).toThrow(
      new InputError(
        'fallback',
        `"${raw}" is not a fallback: use none (fail when no remote builder can be had) or local (build on this runner instead)`
      )
    );
  });
});
