import {describe, expect, test} from '@jest/globals';
import {LogMasker, maskCommandData} from '../../src/harness/log-masker.js';

describe('maskCommandData', () => {
  // prettier-ignore
  test.each([
    [1, '::add-mask::s3cret', 's3cret'],
    [2, '  ::ADD-MASK::upper', 'upper'],
    [3, '::add-mask k=v,x=y::with%0Aprops%25', 'with\nprops%'],
    [4, '::add-mask::a::b', 'a::b'],
    [5, 'text ##[add-mask]old%3Bsyntax%5D', 'old;syntax]'],
    [6, '##[Add-Mask k=v]legacy', 'legacy'],
    [7, '::add-mask::', ''],
    [8, '::warning::no mask here', undefined],
    [9, 'plain', undefined]
  ])('%i: %s', (_n, line, value) => {
    expect(maskCommandData(line)).toBe(value);
  });
});

describe('LogMasker', () => {
  test('hides add-mask lines, masks later lines, and masks from the start what it was given', () => {
    const log = new LogMasker();
    log.addSecret('known-api-key');
    const shown = [
      'key known-api-key',
      'before: late-secret',
      '::add-mask::late-secret',
      '::stop-commands::resume-token-long',
      '::add-mask::stopped-secret',
      '::resume-token-long::',
      'after: late-secret stopped-secret',
      '::warning::multi%0Aline-secret-2'
    ].map(line => log.line(line));
    expect(shown).toEqual([
      'key ***',
      'before: late-secret',
      undefined,
      '::stop-commands::***',
      undefined,
      '::***::',
      'after: *** ***',
      '::warning::multi%0Aline-secret-2'
    ]);
  });

  test('log() drops add-mask lines of a whole text and masks the rest', () => {
    const log = new LogMasker();
    expect(log.log('a\r\n::add-mask::b-secret\r\nsee b-secret')).toBe('a\nsee ***');
    expect(log.mask('b-secret')).toBe('***');
  });
});
