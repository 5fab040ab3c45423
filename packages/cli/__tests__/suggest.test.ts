import {expect, test} from '@jest/globals';
import {closest, editDistance} from '../src/suggest.js';

const OPTIONS = [
  '--api-url',
  '--api-key',
  '--json',
  '--verbose',
  '--help',
  '--profile',
  '--timeout',
  '--name',
  '--no-use'
];

test.each<[number, string, string | undefined]>([
  [1, '--jsn', '--json'],
  [2, '--jsno', '--json'],
  [3, '--profle', '--profile'],
  [4, '--time', '--timeout'],
  [5, '--no-us', '--no-use'],
  [6, '--api', undefined], // a prefix of two options: no guess
  [7, '--nope', undefined], // 2 edits from --name, but a short word: too far to guess
  [8, '--platforms', undefined],
  [9, '--x', undefined]
])('%d: closest(%j)', (_n, typed, expected) => {
  expect(closest(typed, OPTIONS)).toBe(expected);
});

test.each<[number, string, string, number]>([
  [1, 'json', 'json', 0],
  [2, 'jsn', 'json', 1],
  [3, 'jsno', 'json', 1],
  [4, 'kitten', 'sitting', 3],
  [5, '', 'abc', 3]
])('%d: editDistance(%j, %j)', (_n, a, b, expected) => {
  expect(editDistance(a, b)).toBe(expected);
  expect(editDistance(b, a)).toBe(expected);
});
