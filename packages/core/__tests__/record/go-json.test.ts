import {describe, expect, test} from '@jest/globals';
import {goJson, GoNumber, goMap, type GoValue} from '../../src/record/go-json.js';
import {parseJsonStream, sanitizeCommand} from '../../src/record/record-trace.js';

describe('goJson: what Go encoding/json writes', () => {
  test.each<[string, GoValue, string]>([
    ['HTML characters escaped', '<a&b>', '"\\u003ca\\u0026b\\u003e"'],
    ['control characters', 'a\nb\tc\u0001\b\f"\\', '"a\\nb\\tc\\u0001\\b\\f\\"\\\\"'],
    ['line and paragraph separators', '\u2028\u2029', '"\\u2028\\u2029"'],
    ['a lone surrogate becomes U+FFFD', 'x\ud800y', '"x\ufffdy"'],
    ['int64 beyond 2^53 exact', 9007199254740993n, '9007199254740993'],
    ['a number literal kept', new GoNumber('1.5e-7'), '1.5e-7'],
    ['bytes as base64', new Uint8Array([1, 2, 255]), '"AQL/"'],
    [
      'empty list and object',
      new Map<string, GoValue>([
        ['a', []],
        ['b', new Map()]
      ]),
      '{"a":[],"b":{}}'
    ],
    ['null', null, 'null']
  ])('%s', (_, value, expected) => {
    expect(goJson(value)).toBe(expected);
  });

  test('MarshalIndent with two spaces: nested, empty ones compact', () => {
    const v = new Map<string, GoValue>([
      ['a', [1, new Map<string, GoValue>([['b', true]])]],
      ['c', new Map()]
    ]);
    expect(goJson(v, '  ')).toBe('{\n  "a": [\n    1,\n    {\n      "b": true\n    }\n  ],\n  "c": {}\n}');
  });

  test('goMap sorts keys by their bytes, as Go sorts a map (not as JS orders integer-like keys)', () => {
    expect(
      goJson(
        goMap(
          [
            ['10', 1],
            ['2', 2],
            ['B', 3],
            ['a', 4]
          ],
          v => v
        )
      )
    ).toBe('{"10":1,"2":2,"B":3,"a":4}');
  });
});

describe('the trace: parse and sanitise as buildx does', () => {
  test('values one after another, objects in order, number literals kept', () => {
    const [a, b] = parseJsonStream('{"z":1,"a":[2.50,-3e2]}\n{"s":"x\\u003c"}');
    expect(goJson(a!)).toBe('{"z":1,"a":[2.50,-3e2]}');
    expect(goJson(b!)).toBe('{"s":"x\\u003c"}');
  });

  test.each([
    ['type=gha,token=abc123,scope=x', 'type=gha,token=xxxxx,scope=x'],
    ['GHTOKEN=s3cret secret_access_key=k2', 'GHTOKEN=xxxxx secret_access_key=xxxxx'],
    [`pull ghs_${'a'.repeat(36)} now`, 'pull xxxxx now'],
    [`github_pat_${'b'.repeat(82)}`, 'xxxxx'],
    ['nothing secret here', 'nothing secret here']
  ])('sanitizeCommand(%j)', (value, expected) => {
    expect(sanitizeCommand(value)).toBe(expected);
  });
});
