import {expect, test} from '@jest/globals';
import {yamlBoolean} from '../src/yaml-boolean.js';

// prettier-ignore
test.each<[string, boolean | undefined]>([
  ['true', true], ['True', true], ['TRUE', true],
  ['false', false], ['False', false], ['FALSE', false],
  ['', undefined], ['tRUE', undefined], ['yes', undefined], ['1', undefined], [' true', undefined]
])('yamlBoolean(%o) → %o', (value, expected) => {
  expect(yamlBoolean(value)).toBe(expected);
});
