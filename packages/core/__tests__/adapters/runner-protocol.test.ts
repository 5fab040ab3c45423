// The runner's protocol: expected lines written by hand from the runner's rules (and @actions/core 3.0.1's output).
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterEach, expect, test} from '@jest/globals';
import {
  annotationProperties,
  escapeData,
  escapeProperty,
  keyValueMessage,
  setKeyValue,
  workflowCommand,
  type CommandProperties
} from '../../src/adapters/runner-protocol.js';

// prettier-ignore
test.each([
  ['plain', 'abc', 'abc', 'abc'],
  ['percent first, so an escape is never escaped again', '100%0A', '100%250A', '100%250A'],
  ['CR and LF', 'a\r\nb', 'a%0D%0Ab', 'a%0D%0Ab'],
  ['colon and comma: properties only', 'a:b,c', 'a:b,c', 'a%3Ab%2Cc'],
  ['everything', '%\r\n:,', '%25%0D%0A:,', '%25%0D%0A%3A%2C']
])('escaping: %s', (_name, input, data, property) => {
  expect(escapeData(input)).toBe(data);
  expect(escapeProperty(input)).toBe(property);
});

// prettier-ignore
test.each([
  ['no properties', 'debug', {}, 'x', '::debug::x'],
  ['add-mask', 'add-mask', {}, 's3cr%t', '::add-mask::s3cr%25t'],
  ['group', 'group', {}, 'Title: one', '::group::Title: one'],
  ['endgroup', 'endgroup', {}, '', '::endgroup::'],
  ['properties in the order given, escaped', 'error', {title: 'a,b', file: 'c:d'}, 'm', '::error title=a%2Cb,file=c%3Ad::m'],
  ['empty values left out', 'notice', {title: '', file: 'f', line: 0, col: 2}, 'm', '::notice file=f,col=2::m'],
  ['every value empty: the space stays', 'warning', {title: undefined}, 'm', '::warning ::m']
] as [string, string, CommandProperties, string, string][])('workflow command: %s', (_name, command, properties, message, line) => {
  expect(workflowCommand(command, properties, message)).toBe(line);
});

test('annotation properties take the runner names, and none for an empty object', () => {
  expect(annotationProperties({})).toEqual({});
  expect(annotationProperties(undefined)).toEqual({});
  expect(workflowCommand('warning', annotationProperties({endColumn: 9, startLine: 4}), 'm')).toBe(
    '::warning line=4,endColumn=9::m'
  );
});

// prettier-ignore
test.each([
  ['one line', 'name', 'value', 'name<<ghadelimiter_X\nvalue\nghadelimiter_X'],
  ['several lines', 'tags', 'a\nb\n', 'tags<<ghadelimiter_X\na\nb\n\nghadelimiter_X'],
  ['empty value', 'e', '', 'e<<ghadelimiter_X\n\nghadelimiter_X']
])('heredoc: %s', (_name, name, value, message) => {
  expect(keyValueMessage(name, value, 'ghadelimiter_X')).toBe(message);
});

test('a delimiter in the name or the value is refused', () => {
  expect(() => keyValueMessage('aghadelimiter_X', 'v', 'ghadelimiter_X')).toThrow(
    'Unexpected input: name should not contain the delimiter "ghadelimiter_X"'
  );
  expect(() => keyValueMessage('n', 'v\nghadelimiter_X', 'ghadelimiter_X')).toThrow(
    'Unexpected input: value should not contain the delimiter "ghadelimiter_X"'
  );
});

test('the default delimiter is ghadelimiter_ and a new UUID each time', () => {
  const uuid = /^n<<(ghadelimiter_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12})\nv\n\1$/;
  const first = uuid.exec(keyValueMessage('n', 'v'));
  const second = uuid.exec(keyValueMessage('n', 'v'));
  expect(first).not.toBeNull();
  expect(second?.[1]).not.toBe(first?.[1]);
});

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, {recursive: true, force: true});
  delete process.env['GITHUB_OUTPUT'];
});

test('a file command is appended to GITHUB_<command>, each ending in EOL', () => {
  const dir = mkdtempSync(join(tmpdir(), 'runner-protocol-'));
  dirs.push(dir);
  const file = join(dir, 'output');
  writeFileSync(file, 'before\n');
  process.env['GITHUB_OUTPUT'] = file;
  setKeyValue('OUTPUT', 'a', 'x');
  setKeyValue('OUTPUT', 'b', 'y\nz');
  const text = readFileSync(file, 'utf8').replace(/ghadelimiter_[0-9a-f-]{36}/g, 'D');
  expect(text).toBe('before\na<<D\nx\nD\nb<<D\ny\nz\nD\n');
});

test('a file command whose file is missing throws, naming the path', () => {
  process.env['GITHUB_OUTPUT'] = '/nonexistent/h8/output';
  expect(() => setKeyValue('OUTPUT', 'a', 'x')).toThrow('Missing file at path: /nonexistent/h8/output');
});
