import {describe, expect, test} from '@jest/globals';
import {parseCsv, CsvError} from '../../src/docker/csv.js';
import {parseDockerBool, parseInputList, untrimmedInput, type InputListOpts} from '../../src/docker/input-list.js';

// The cases of docker's Util.getInputList tests (@docker/actions-toolkit __tests__/util.test.ts), same semantics.
describe('parseInputList', () => {
  // prettier-ignore
  test.each([
    [1, 'bar', {}, ['bar']],
    [2, 'bar\nbaz', {}, ['bar', 'baz']],
    [3, 'bar\n\nbaz', {}, ['bar', 'baz']],
    [4, 'bar,baz', {}, ['bar', 'baz']],
    [5, 'bar,baz,', {}, ['bar', 'baz']],
    [6, 'bar\r\nbaz', {}, ['bar', 'baz']],
    [7, 'bar\r\nbaz,bat', {}, ['bar', 'baz', 'bat']],
    [8, 'user/app:cache\ntype=local,src=path/to/dir', {ignoreComma: true}, ['user/app:cache', 'type=local,src=path/to/dir']],
    [9, 'user/app:cache\r\ntype=local,src=path/to/dir', {ignoreComma: true}, ['user/app:cache', 'type=local,src=path/to/dir']],
    [10, 'GIT_AUTH_TOKEN=abcdefgh,ijklmno=0123456789\n"MYSECRET=aaaaaaaa\nbbbbbbb\nccccccccc"\nFOO=bar', {ignoreComma: true},
      ['GIT_AUTH_TOKEN=abcdefgh,ijklmno=0123456789', 'MYSECRET=aaaaaaaa\nbbbbbbb\nccccccccc', 'FOO=bar']],
    [11, 'GIT_AUTH_TOKEN=abcdefgh,ijklmno=0123456789\n"MYSECRET=aaaaaaaa\nbbbbbbb\nccccccccc"\nFOO=bar\n"EMPTYLINE=aaaa\n\nbbbb\nccc"', {ignoreComma: true},
      ['GIT_AUTH_TOKEN=abcdefgh,ijklmno=0123456789', 'MYSECRET=aaaaaaaa\nbbbbbbb\nccccccccc', 'FOO=bar', 'EMPTYLINE=aaaa\n\nbbbb\nccc']],
    [12, 'GIT_AUTH_TOKEN=abcdefgh,ijklmno=0123456789\nMYSECRET=aaaaaaaa\nbbbbbbb\nccccccccc\nFOO=bar', {ignoreComma: true},
      ['GIT_AUTH_TOKEN=abcdefgh,ijklmno=0123456789', 'MYSECRET=aaaaaaaa', 'bbbbbbb', 'ccccccccc', 'FOO=bar']],
    [13, 'GIT_AUTH_TOKEN=abcdefgh,ijklmno=0123456789\n"MYSECRET=aaaaaaaa\nbbbb""bbb\nccccccccc"\nFOO=bar', {ignoreComma: true},
      ['GIT_AUTH_TOKEN=abcdefgh,ijklmno=0123456789', 'MYSECRET=aaaaaaaa\nbbbb"bbb\nccccccccc', 'FOO=bar']],
    [14, 'type=image,"name=a:1,a:2",push=true', {ignoreComma: true, quote: false}, ['type=image,"name=a:1,a:2",push=true']],
    [15, 'type=image,"name=a:1,a:2",push=true', {ignoreComma: true}, ['type=image,name=a:1,a:2,push=true']],
    [16, 'FOO=bar#baz', {ignoreComma: true}, ['FOO=bar#baz']],
    [17, '# a comment\nFOO=bar # trailing\nBAZ=qux', {ignoreComma: true, comment: '#'}, ['FOO=bar', 'BAZ=qux']],
    [18, '# a comment\nFOO=bar#baz', {ignoreComma: true, comment: '#', commentNoInfix: true}, ['FOO=bar#baz']],
    [19, '  name/app:7.4 ,  name/app:latest  ', {}, ['name/app:7.4', 'name/app:latest']],
    [20, 'a\n \nb', {}, ['a', '', 'b']],
    [21, '', {}, []],
    [22, 'a"b,c', {}, ['a"b', 'c']],
    // trimWhitespace: false (toolkit 0.89, build-push v7.3.0's `secrets`): items keep their whitespace.
    [23, '"PRIVATE_SSH_KEY=TEST\nTEST\n\n\n"\n', {ignoreComma: true, trimWhitespace: false}, ['PRIVATE_SSH_KEY=TEST\nTEST\n\n\n']],
    [24, 'A=1  \nB=2\t', {ignoreComma: true, trimWhitespace: false}, ['A=1  ', 'B=2\t']],
    [25, 'a\n \nb', {trimWhitespace: false}, ['a', ' ', 'b']]
  ])('[%d] %j %j', (_n, input, opts, expected) => {
    expect(parseInputList(input, opts as InputListOpts)).toEqual(expected);
  });
});

describe('untrimmedInput', () => {
  test('INPUT_<NAME> as the runner set it, else the trimmed getInput', () => {
    const getInput = (n: string) => ({'secret-x': 'from getInput'})[n] ?? '';
    expect(untrimmedInput({getInput, env: {'INPUT_SECRET-X': ' K=v\n\n'}}, 'secret-x')).toBe(' K=v\n\n');
    expect(untrimmedInput({getInput, env: {}}, 'secret-x')).toBe('from getInput');
  });
});

describe('parseCsv', () => {
  test('strict parsing throws where csv-parse does', () => {
    expect(() => parseCsv('a"b')).toThrow(CsvError);
    expect(() => parseCsv('"a"b')).toThrow(CsvError);
    expect(() => parseCsv('"open')).toThrow(/not closed/);
    expect(() => parseCsv('"a" x', {trim: true})).toThrow(CsvError);
  });

  test('trim and quotes', () => {
    expect(parseCsv(' type = docker , "dest= x " ', {trim: true})).toEqual([['type = docker', 'dest= x ']]);
    expect(parseCsv('a,b\r\nc\rd')).toEqual([['a', 'b'], ['c\rd']]);
    expect(parseCsv('"a"b,c', {relaxQuotes: true})).toEqual([['"a"b', 'c']]);
  });
});

describe('parseDockerBool', () => {
  test.each([
    ['1', true],
    ['t', true],
    ['True', true],
    ['0', false],
    ['F', false],
    ['FALSE', false]
  ])('%s', (v, b) => expect(parseDockerBool(v)).toBe(b));
  test('anything else throws', () => expect(() => parseDockerBool('yes')).toThrow(/parseBool syntax error: yes/));
});
