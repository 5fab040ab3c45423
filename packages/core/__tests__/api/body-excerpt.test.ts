import {describe, expect, test} from '@jest/globals';
import {bodyExcerpt, MAX_EXCERPT_CHARS} from '../../src/api/body-excerpt.js';

describe('bodyExcerpt', () => {
  test.each([
    ['', [], ''],
    ['  plain\n\ttext  ', [], 'plain text'],
    ['key=s3cr3t and s3cr3t', ['s3cr3t'], 'key=*** and ***'],
    ['nothing to hide', [''], 'nothing to hide'],
    ['a -----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY----- b', [], 'a [redacted PEM] b'],
    ['{"client_key":"-----BEGIN EC PRIVATE KEY-----\\nAAAA', [], '{"client_key":"[redacted PEM]']
  ])('%#. %j', (body, secrets, expected) => {
    expect(bodyExcerpt(body, secrets)).toBe(expected);
  });

  test('cuts at 300 characters with an ellipsis', () => {
    expect(MAX_EXCERPT_CHARS).toBe(300);
    const s = bodyExcerpt('z'.repeat(301));
    expect(s).toHaveLength(300);
    expect(s.endsWith('z…')).toBe(true);
    expect(bodyExcerpt('z'.repeat(300))).toBe('z'.repeat(300));
  });

  test('redacts before cutting, so no prefix of a secret survives the cut', () => {
    const secret = 'TOPSECRETVALUE';
    const s = bodyExcerpt(`${'a'.repeat(290)}${secret}`, [secret]);
    expect(s).toBe(`${'a'.repeat(290)}***`);
  });
});
