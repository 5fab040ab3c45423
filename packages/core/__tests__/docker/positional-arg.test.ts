import {expect, test} from '@jest/globals';
import {checkPositional} from '../../src/docker/positional-arg.js';
import {InputError} from '../../src/errors.js';

// prettier-ignore
test.each<[string | string[], string | undefined]>([
  ['.', undefined],
  ['', undefined],
  ['./-dir', undefined],
  ['https://github.com/o/r.git#main', undefined],
  ['{{defaultContext}}:sub', undefined],
  [['api', 'web'], undefined],
  [[], undefined],
  ['a-b', undefined],
  ['-', 'Input "x": "-" starts with "-", so docker would read it as an option and not as a name or path (a path: write ./-)'],
  ['--file=/etc/passwd', 'Input "x": "--file=/etc/passwd" starts with "-", so docker would read it as an option and not as a name or path (a path: write ./--file=/etc/passwd)'],
  [['api', '--allow=fs=*'], 'Input "x": "--allow=fs=*" starts with "-", so docker would read it as an option and not as a name or path (a path: write ./--allow=fs=*)']
])('%j → %s', (values, error) => {
  if (error === undefined) expect(checkPositional('x', values)).toBe(values);
  else expect(() => checkPositional('x', values)).toThrow(new InputError('x', error.replace('Input "x": ', '')));
});
