import {describe, expect, test} from '@jest/globals';
import {parseWorkflowCommand, parseWorkflowCommands} from '../../src/harness/workflow-command-parser.js';

describe('parseWorkflowCommand', () => {
  test.each([
    [1, '::error::boom', {name: 'error', properties: {}, data: 'boom'}],
    [2, '  ::notice::indented', {name: 'notice', properties: {}, data: 'indented'}],
    [3, '::warning::50%25%0Anext', {name: 'warning', properties: {}, data: '50%\nnext'}],
    [
      4,
      '::error file=a.ts,line=3,title=x%3A y%2C z::msg',
      {name: 'error', properties: {file: 'a.ts', line: '3', title: 'x: y, z'}, data: 'msg'}
    ],
    [5, '::error file=,=v,ok=1::m', {name: 'error', properties: {ok: '1'}, data: 'm'}],
    [6, '::add-mask::a::b', {name: 'add-mask', properties: {}, data: 'a::b'}],
    [7, '::debug::', {name: 'debug', properties: {}, data: ''}],
    [8, '::WARNING title=T::case', {name: 'warning', properties: {title: 'T'}, data: 'case'}],
    [
      9,
      'text ##[error file=a.ts;line=2]old%3Bsyntax%5D',
      {name: 'error', properties: {file: 'a.ts', line: '2'}, data: 'old;syntax]'}
    ]
  ])('%i: %s', (_n, line, command) => {
    expect(parseWorkflowCommand(line)).toEqual(command);
  });

  test.each([
    [1, 'plain text'],
    [2, '::no end'],
    [3, ':::: empty name'],
    [4, 'text ::error::not at start']
  ])('%i: %s is not a command', (_n, line) => {
    expect(parseWorkflowCommand(line)).toBeUndefined();
  });
});

describe('parseWorkflowCommands', () => {
  test('collects annotations and masks, skipping stopped commands', () => {
    const parsed = parseWorkflowCommands([
      '::add-mask::secret',
      '##[add-mask]old',
      '::add-mask::  ',
      '::error title=T::e',
      '::stop-commands::tok',
      '::error::ignored',
      '::add-mask::ignored',
      '::TOK extra=1::resumes, any case, with properties',
      '::warning::w',
      '::group::g',
      '::notice::n',
      '::debug::d'
    ]);
    expect(parsed).toEqual({
      state: {},
      outputs: {},
      masks: ['secret', 'old'],
      annotations: [
        {level: 'error', message: 'e', properties: {title: 'T'}},
        {level: 'warning', message: 'w', properties: {}},
        {level: 'notice', message: 'n', properties: {}},
        {level: 'debug', message: 'd', properties: {}}
      ]
    });
  });

  test('save-state and set-output from the log count, in either form, anywhere for the legacy one; not while stopped', () => {
    const parsed = parseWorkflowCommands([
      '::save-state name=builder::{"certDir":"/"}',
      '#3 0.512 ##[save-state name=tmpDir;]/home/runner',
      '  ::set-output name=digest::sha256:evil',
      'build says ##[set-output name=imageid;]x%3By',
      'x ::save-state name=late::not at the start: data',
      '::save-state::no name',
      '::stop-commands::f00d',
      '::save-state name=builder::ignored',
      '#4 ##[save-state name=ignored;]too',
      '::f00d::',
      '::set-output name=after::resumed'
    ]);
    expect(parsed.state).toEqual({builder: '{"certDir":"/"}', tmpDir: '/home/runner'});
    expect(parsed.outputs).toEqual({digest: 'sha256:evil', imageid: 'x;y', after: 'resumed'});
  });
});
