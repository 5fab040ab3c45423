import {describe, expect, test} from '@jest/globals';
import {encodedForms, SecretMasker, secretParts, VALUE_ENCODERS} from '../../src/harness/secret-masker.js';

describe('VALUE_ENCODERS', () => {
  // prettier-ignore
  test.each([
    [1, 'base64', 'user:pass', 'dXNlcjpwYXNz'],
    [2, 'base64Shift1', 'user:pass', 'c2VyOnBhc3M='],
    [3, 'base64Shift2', 'user:pass', 'ZXI6cGFzcw=='],
    [4, 'commandLineArgument', 'a"b', 'a\\"b'],
    [5, 'expressionString', "it's", "it''s"],
    [6, 'jsonString', 'a\n"b"\\', 'a\\n\\"b\\"\\\\'],
    [7, 'uriData', "a b!'()*~", "a%20b%21%27%28%29%2A~"],
    [8, 'xmlData', `<a href="x">&'`, '&lt;a href=&quot;x&quot;&gt;&amp;&apos;'],
    [9, 'trimDoubleQuotes', '"quoted-value"', 'quoted-value'],
    [10, 'trimDoubleQuotes', '"short"', ''],
    [11, 'powerShellPreAmpersand', 'secretpart1&secretpart2&tail', 'secretpart1&secretpart2&'],
    [12, 'powerShellPostAmpersand', 'secretpart1&+secretpart2', 'ecretpart2'],
    [13, 'commandData', '50%\r\nx', '50%25%0D%0Ax'],
    [14, 'commandProperty', 'a:b,c%', 'a%3Ab%2Cc%25'],
    [15, 'legacyCommand', 'a;b]c%\n', 'a%3Bb%5Dc%25%0A'],
    [16, 'jsonAscii', '<é>', '\\u003c\\u00e9\\u003e'],
    [17, 'htmlData', "'", '&#39;'],
    [18, 'formData', 'a b&c', 'a+b%26c'],
    [19, 'base64Inner0', 'abcdefgh', 'YWJjZGVm'],
    [20, 'base64Inner1', 'abcdefgh', 'YmNkZWZn'],
    [21, 'base64Inner2', 'ab', ''],
    [22, 'base64url', '\u00ff\u00fe?', 'w7_Dvj8'],
    [23, 'hex', 'ab', '6162']
  ])('%i: %s(%j) is %j', (_n, encoder, value, encoded) => {
    expect(VALUE_ENCODERS[encoder]?.(value)).toBe(encoded);
  });

  test('a value found in the middle of a longer base64 text, at each byte offset', () => {
    const secret = 'p@ssw0rd-in-the-middle';
    for (const prefix of ['', 'x', 'xy', 'xyz']) {
      const text = Buffer.from(`Authorization: ${prefix}${secret} trailer`).toString('base64');
      expect(new SecretMasker().mask(text)).toBe(text);
      const masker = new SecretMasker();
      masker.add(secret);
      expect(masker.mask(text)).toContain('***');
    }
  });
});

describe('secretParts', () => {
  test.each([
    [1, '', []],
    [2, '  \n ', []],
    [3, 'one', ['one']],
    [4, ' padded ', [' padded ', 'padded']],
    [5, 'l1\r\n l2 \n\nl3\n', ['l1\r\n l2 \n\nl3\n', 'l1\r\n l2 \n\nl3', 'l1', 'l2', 'l3']]
  ])('%i: %j', (_n, value, parts) => {
    expect(secretParts(value)).toEqual(parts);
  });
});

describe('SecretMasker', () => {
  test('masks every occurrence, merging overlaps into one ***', () => {
    const masker = new SecretMasker();
    masker.add('abcd');
    masker.add('cdef');
    expect(masker.mask('xabcdefx abcd cdef')).toBe('x***x *** ***');
  });

  test('masks each line of a multi-line secret, and one character like the runner (no minimum length)', () => {
    const masker = new SecretMasker();
    masker.add('-----BEGIN KEY-----\nAAAA\nBBBB\n-----END KEY-----\n');
    masker.add('z');
    expect(masker.mask('got AAAA then BBBB, and a z')).toBe('got *** then ***, and a ***');
    expect(masker.size).toBe(7);
  });

  test('leaves text alone when nothing is registered, and ignores blank values', () => {
    const masker = new SecretMasker();
    masker.add('   ');
    expect(masker.size).toBe(0);
    expect(masker.mask('anything')).toBe('anything');
  });

  test('encodedForms has the value first and no duplicates or empty strings', () => {
    const forms = encodedForms('plain');
    expect(forms[0]).toBe('plain');
    expect(new Set(forms).size).toBe(forms.length);
    expect(forms).not.toContain('');
  });
});
