import {describe, expect, test} from '@jest/globals';
import {
  list,
  nonNegativeNumber,
  parseCommandArgs,
  positionals,
  required,
  splitCommand,
  wantsHelp,
  wholeNumber
} from '../src/args.js';
import {UsageError} from '../src/usage-error.js';

describe('splitCommand', () => {
  test.each<[number, string[], string[], string[]]>([
    [1, ['runners', 'list'], ['runners', 'list'], []],
    [2, ['runners', 'get', 'rnr_1', '--json'], ['runners', 'get'], ['rnr_1', '--json']],
    [3, ['--json', 'stacks', 'list'], ['stacks', 'list'], ['--json']],
    [4, ['--api-url', 'http://x', 'stacks', 'list'], ['stacks', 'list'], ['--api-url', 'http://x']],
    [5, ['--api-key=k', 'stacks', 'list', '--kind', 'ec2'], ['stacks', 'list'], ['--api-key=k', '--kind', 'ec2']],
    [6, ['builder', 'run', '--profile', 'p', '--', 'make'], ['builder', 'run'], ['--profile', 'p', '--', 'make']],
    [7, ['builder', '--', 'run'], ['builder'], ['--', 'run']],
    [8, [], [], []],
    [9, ['--help'], [], ['--help']]
  ])('%d: %j', (_n, argv, words, rest) => {
    expect(splitCommand(argv, 2)).toEqual({words, rest});
  });
});

describe('parseCommandArgs', () => {
  const options = {name: {type: 'string'}, yes: {type: 'boolean'}} as const;

  test.each<[number, string[], object, string[], string[] | undefined]>([
    [1, ['--name', 'a'], {name: 'a'}, [], undefined],
    [2, ['--name=a', 'x'], {name: 'a'}, ['x'], undefined],
    [3, ['--yes', '--', 'cmd', '--name', 'b'], {yes: true}, [], ['cmd', '--name', 'b']],
    [4, ['p', '--', '--'], {}, ['p'], ['--']],
    [5, ['--name', ''], {name: ''}, [], undefined],
    [6, ['--name', '-1'], {name: '-1'}, [], undefined],
    [7, ['--name=--yes'], {name: '--yes'}, [], undefined]
  ])('%d: %j', (_n, args, values, pos, after) => {
    const parsed = parseCommandArgs(args, options, 'x y');
    expect(parsed.values).toEqual(values);
    expect(parsed.positionals).toEqual(pos);
    expect(parsed.afterTerminator).toEqual(after);
  });

  test.each<[number, string[], RegExp]>([
    [1, ['--nope'], /^unknown option "--nope" for "x y"$/],
    [2, ['--name'], /^missing the value of --name$/],
    [3, ['--yes=1'], /^--yes takes no value \(got "--yes=1"\)$/],
    [4, ['--nmae', 'a'], /^unknown option "--nmae" for "x y"; did you mean --name\?$/],
    [5, ['-qy'], /^unknown option "-q" \(in "-qy"\) for "x y"$/],
    [
      6,
      ['--name', '--yes'],
      /^missing the value of --name \(the next argument, "--yes", is an option; .*--name=--yes\)$/
    ],
    [7, ['--name', '--', 'cmd'], /^missing the value of --name \(the next argument, "--", ends the options/]
  ])('%d: %j is a usage error', (_n, args, message) => {
    let error: unknown;
    try {
      parseCommandArgs(args, options, 'x y');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toMatch(message);
    expect((error as UsageError).command).toBe('x y');
  });
});

describe('value helpers', () => {
  test.each<[number, string[], boolean]>([
    [1, ['--help'], true],
    [2, ['-h'], true],
    [3, ['--', '--help'], false],
    [4, ['a', '-h', '--', 'b'], true],
    [5, [], false]
  ])('%d: wantsHelp(%j)', (_n, args, expected) => {
    expect(wantsHelp(args)).toBe(expected);
  });

  test.each<[number, string, string[]]>([
    [1, 'a,b', ['a', 'b']],
    [2, ' a , ,b ', ['a', 'b']],
    [3, '', []]
  ])('%d: list(%j)', (_n, raw, expected) => {
    expect(list(raw)).toEqual(expected);
  });

  test.each<[number, string, number, number | RegExp]>([
    [1, '0', 0, 0],
    [2, '12', 0, 12],
    [3, '0', 1, /--n must be a whole number >= 1/],
    [4, '1.5', 0, /whole number/],
    [5, '-1', 0, /whole number/],
    [6, 'x', 0, /whole number/],
    [7, '1e3', 0, /--n must be a whole number >= 0, got "1e3"/]
  ])('%d: wholeNumber(%j, min %d)', (_n, raw, min, expected) => {
    if (typeof expected === 'number') expect(wholeNumber(raw, 'n', 'c', min)).toBe(expected);
    else expect(() => wholeNumber(raw, 'n', 'c', min)).toThrow(expected);
  });

  test.each<[number, string, number | RegExp]>([
    [1, '1', 1],
    [2, '21600000', 21600000],
    [3, '0', /^--timeout must be a whole number of milliseconds from 1 to 21600000, got "0"$/],
    [4, '21600001', /from 1 to 21600000, got "21600001"/],
    [5, '-1', /from 1 to 21600000, got "-1"/],
    [6, '1e3', /from 1 to 21600000, got "1e3"/],
    [7, 'abc', /from 1 to 21600000, got "abc"/]
  ])('%d: wholeNumber(%j) with a range and a unit', (_n, raw, expected) => {
    const parse = () => wholeNumber(raw, 'timeout', 'c', 1, 21600000, 'milliseconds');
    if (typeof expected === 'number') expect(parse()).toBe(expected);
    else expect(parse).toThrow(expected);
  });

  test.each<[number, string, number | RegExp]>([
    [1, '2.5', 2.5],
    [2, '0', 0],
    [3, '-1', /number >= 0/],
    [4, '', /number >= 0/],
    [5, 'inf', /number >= 0/]
  ])('%d: nonNegativeNumber(%j)', (_n, raw, expected) => {
    if (typeof expected === 'number') expect(nonNegativeNumber(raw, 'n', 'c')).toBe(expected);
    else expect(() => nonNegativeNumber(raw, 'n', 'c')).toThrow(expected);
  });

  test('required and positionals', () => {
    expect(required({a: ''}, 'a', 'c')).toBe('');
    expect(() => required({}, 'a', 'c')).toThrow('missing --a');
    expect(positionals({values: {}, positionals: ['x']}, ['ID'], 'c')).toEqual(['x']);
    expect(() => positionals({values: {}, positionals: []}, ['ID'], 'c')).toThrow('missing ID');
    expect(() => positionals({values: {}, positionals: ['x', 'y']}, ['ID'], 'c')).toThrow('unexpected argument "y"');
    expect(() => positionals({values: {}, positionals: [' ']}, ['ID'], 'c')).toThrow('ID must not be empty');
  });
});
