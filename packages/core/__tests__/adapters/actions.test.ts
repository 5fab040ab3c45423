// actionsLogger on the runner's protocol: what reaches the runner's log, byte for byte (as @actions/core 3.0.1 wrote it).
import {expect, jest, test} from '@jest/globals';
import {actionsIO, actionsLogger, actionsStateStore, getInput} from '../../src/adapters/actions.js';
import type {AnnotationProperties} from '../../src/logger.js';

function stdoutOf(fn: () => void): string {
  const out: string[] = [];
  const spy = jest.spyOn(process.stdout, 'write').mockImplementation(chunk => {
    out.push(String(chunk));
    return true;
  });
  try {
    fn();
  } finally {
    spy.mockRestore();
  }
  return out.join('');
}

// prettier-ignore
test.each([
  ['a plain warning', 'disk: 90%', undefined, '::warning::disk: 90%25\n'],
  ['an annotation: properties in @actions/core order, escaped', 'a\nb', {startLine: 3, file: 'app/Dockerfile', title: 'x, y: z'}, '::warning title=x%2C y%3A z,file=app/Dockerfile,line=3::a%0Ab\n'],
  ['every property', 'm', {title: 't', file: 'f', startLine: 1, endLine: 2, startColumn: 3, endColumn: 4}, '::warning title=t,file=f,line=1,endLine=2,col=3,endColumn=4::m\n']
] as [string, string, AnnotationProperties | undefined, string][])('%s', (_name, message, properties, line) => {
  expect(stdoutOf(() => actionsLogger.warning(message, properties))).toBe(line);
});

test('a group folds what its function prints, and closes when the function throws', async () => {
  const out: string[] = [];
  const spy = jest.spyOn(process.stdout, 'write').mockImplementation(chunk => {
    out.push(String(chunk));
    return true;
  });
  try {
    await expect(
      actionsLogger.group('Step: one', async () => {
        actionsLogger.info('inside');
        throw new Error('boom');
      })
    ).rejects.toThrow('boom');
  } finally {
    spy.mockRestore();
  }
  expect(out.join('')).toBe('::group::Step: one\ninside\n::endgroup::\n');
});

// prettier-ignore
test.each([
  ['debug', () => actionsLogger.debug('50%\ndone'), '::debug::50%25%0Adone\n'],
  ['error', () => actionsLogger.error('a: b, c'), '::error::a: b, c\n'],
  ['add-mask', () => actionsLogger.setSecret('p@ss\r\nword'), '::add-mask::p@ss%0D%0Aword\n'],
  ['info is printed as it is', () => actionsLogger.info('::not-a-command%'), '::not-a-command%\n']
] as [string, () => void, string][])('%s', (_name, fn, line) => {
  expect(stdoutOf(fn)).toBe(line);
});

// prettier-ignore
test.each([
  ['upper case', 'profile', 'INPUT_PROFILE', ' p ', 'p'],
  ['spaces to underscores, dashes kept', 'api url-x', 'INPUT_API_URL-X', 'u', 'u'],
  ['unset', 'nothing-here', 'INPUT_OTHER', 'x', '']
])('getInput: %s', (_name, input, variable, value, expected) => {
  expect(getInput(input, {[variable]: value})).toBe(expected);
});

test('setFailed sets exit code 1 and prints an error', () => {
  const before = process.exitCode;
  try {
    expect(stdoutOf(() => actionsIO().setFailed('no builder\nat all'))).toBe('::error::no builder%0Aat all\n');
    expect(process.exitCode).toBe(1);
  } finally {
    process.exitCode = before;
  }
});

test('state is read from STATE_<key>, as the runner passes it to post', () => {
  process.env['STATE_h8Key'] = 'v';
  try {
    expect(actionsStateStore.get('h8Key')).toBe('v');
    expect(actionsStateStore.get('h8Missing')).toBe('');
  } finally {
    delete process.env['STATE_h8Key'];
  }
});
