import {expect, test} from '@jest/globals';
import {ApiKeyAuth} from '../src/auth.js';

const auth = new ApiKeyAuth({
  keys: [
    {key: 'builders-key', scopes: ['builders']},
    {key: 'ci-key', scopes: ['ci', 'cache']},
    {key: 'open-key', scopes: []},
    {key: 'star-key', scopes: ['*']}
  ]
});

test.each<[number, string | undefined, number | 'ok']>([
  [1, undefined, 401],
  [2, '', 401],
  [3, 'Basic abc', 401],
  [4, 'Bearer nope', 401],
  [5, 'Bearer ci-key', 403],
  [6, 'Bearer builders-key', 'ok'],
  [7, 'bearer builders-key', 'ok'],
  [8, 'Bearer open-key', 'ok'],
  [9, 'Bearer star-key', 'ok']
])('%d: %s → %s', (_n, header, expected) => {
  const result = auth.check(header, 'builders');
  expect(result.ok ? 'ok' : result.status).toBe(expected);
});

test('rejects malformed keys at construction', () => {
  expect(() => new ApiKeyAuth({keys: [{key: '', scopes: []}]})).toThrow(/Invalid API key/);
  expect(() => new ApiKeyAuth({keys: [{key: 'k', scopes: 'all' as unknown as string[]}]})).toThrow(/scopes/);
});

test.each<[number, string, number | 'ok']>([
  [1, 'Bearer ci-key', 'ok'],
  [2, 'Bearer builders-key', 403],
  [3, 'Bearer open-key', 'ok'],
  [4, 'Bearer star-key', 'ok'],
  [5, 'Bearer nope', 401]
])('%d: a list of scopes needs every one: %s → %s', (_n, header, expected) => {
  const result = auth.check(header, ['ci', 'cache']);
  expect(result.ok ? 'ok' : result.status).toBe(expected);
});
