import {describe, expect, test} from '@jest/globals';
import {parseKeyValueFile, parsePathFile} from '../../src/harness/file-command-parser.js';

describe('parseKeyValueFile', () => {
  test.each([
    [1, '', {}],
    [2, 'name=value\n', {name: 'value'}],
    [3, 'name=a=b\n', {name: 'a=b'}],
    [4, 'name=\n', {name: ''}],
    [5, 'name<<EOF\nline1\nline2\nEOF\n', {name: 'line1\nline2'}],
    [6, 'name<<EOF\nEOF\n', {name: ''}],
    [7, 'name<<EOF\n\nEOF\n', {name: ''}],
    [8, 'a=1\n\nb<<X\nx=y\nX\nc=3', {a: '1', b: 'x=y', c: '3'}],
    [9, 'a=1\na=2\n', {a: '2'}],
    [10, 'k<<ghadelimiter_1\nv\nghadelimiter_1', {k: 'v'}],
    [11, 'a=b<<c\n', {a: 'b<<c'}],
    [12, 'x<<a=b\nv\na=b\n', {x: 'v'}]
  ])('%i: %j', (_n, text, values) => {
    expect(parseKeyValueFile(text)).toEqual({values});
  });

  test.each([
    [1, 'no separator\n', {}, "Invalid format 'no separator'"],
    [2, 'a=1\nname<<EOF\nvalue\n', {a: '1'}, "Invalid value. Matching delimiter not found 'EOF'"],
    [3, '<<EOF\nEOF\n', {}, "Invalid format '<<EOF'. Name must not be empty and delimiter must not be empty"],
    [4, 'name<<\n', {}, "Invalid format 'name<<'. Name must not be empty and delimiter must not be empty"],
    [5, 'bad\na=1\n', {}, "Invalid format 'bad'"]
  ])('%i: reports %j', (_n, text, values, error) => {
    expect(parseKeyValueFile(text)).toEqual({values, error});
  });
});

describe('parsePathFile', () => {
  test.each([
    [1, '', []],
    [2, '/a\n', ['/a']],
    [3, '/a\n\n/b', ['/a', '/b']]
  ])('%i: %j', (_n, text, dirs) => {
    expect(parsePathFile(text)).toEqual(dirs);
  });
});
