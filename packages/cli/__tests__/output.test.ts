import {expect, test} from '@jest/globals';
import {cell, formatJson, formatRecord, formatTable} from '../src/output.js';

test('formatTable aligns columns two spaces apart without trailing spaces', () => {
  expect(
    formatTable([
      ['ID', 'NAME', 'X'],
      ['a-long-id', 'n', ''],
      ['b', 'longer-name', 'z']
    ])
  ).toBe('ID         NAME         X\na-long-id  n\nb          longer-name  z\n');
});

test('formatRecord flattens nested objects to dotted keys', () => {
  expect(
    formatRecord({id: 'r', labels: ['a', 'b'], empty: '', none: null, meta: {x: true, deep: {n: 1}}, nothing: {}})
  ).toBe(
    [
      'id           r',
      'labels       a,b',
      'empty        ""',
      'none         null',
      'meta.x       true',
      'meta.deep.n  1',
      'nothing      {}',
      ''
    ].join('\n')
  );
});

test.each<[number, unknown, string]>([
  [1, undefined, '-'],
  [7, '', '-'],
  [8, [], '-'],
  [2, 'a\nb', 'a\\nb'],
  [3, [1, 'x', null], '1,x,null'],
  [4, [{a: 1}], '[{"a":1}]'],
  [5, 3.5, '3.5'],
  [6, false, 'false']
])('%d: cell(%j)', (_n, value, expected) => {
  expect(cell(value)).toBe(expected);
});

test('formatJson is pretty with a trailing newline', () => {
  expect(formatJson({a: [1]})).toBe('{\n  "a": [\n    1\n  ]\n}\n');
});
