// The one place that suspends and resumes the runner's workflow commands: what reaches the log, line by line.
import {describe, expect, jest, test} from '@jest/globals';
import {actionsLogger} from '../../src/adapters/actions.js';
import {UntrustedBlock, newStopToken} from '../../src/adapters/untrusted-block.js';

const TOKEN = 'c0ffee00c0ffee00c0ffee00c0ffee00';

function block(): {block: UntrustedBlock; lines: string[]} {
  const lines: string[] = [];
  return {block: new UntrustedBlock({writeLine: l => lines.push(l), newToken: () => TOKEN}), lines};
}

// What a build, a dependency or a Dockerfile RUN may print, in every form the runner knows.
const INJECTED = [
  '::save-state name=builder::{"builderIds":["x"]}',
  '   ::set-output name=digest::sha256:evil',
  '#3 0.512 ##[save-state name=builder;]{"certDir":"/"}',
  '##[set-output name=imageid;]evil',
  '::add-mask::nothing',
  '::stop-commands::other',
  '::other::',
  '::error file=Dockerfile::planted'
];

describe('UntrustedBlock', () => {
  test('every injected line is printed as data between stop-commands and the one resume line', () => {
    const {block: b, lines} = block();
    b.print(INJECTED.join('\n'));
    b.close();
    expect(lines).toEqual([`::add-mask::${TOKEN}`, `::stop-commands::${TOKEN}`, ...INJECTED, `::${TOKEN}::`]);
  });

  test('stays open across prints, masks its token once, and reopens with the same token after close', () => {
    const {block: b, lines} = block();
    b.print('a');
    b.print('b');
    expect(b.open).toBe(true);
    b.close();
    b.close();
    b.print('c');
    b.close();
    expect(lines).toEqual([
      `::add-mask::${TOKEN}`,
      `::stop-commands::${TOKEN}`,
      'a',
      'b',
      `::${TOKEN}::`,
      `::stop-commands::${TOKEN}`,
      'c',
      `::${TOKEN}::`
    ]);
  });

  test('the token is 128 random bits, new per process block', () => {
    const a = newStopToken();
    expect(a).toMatch(/^[0-9a-f]{32}$/);
    expect(newStopToken()).not.toBe(a);
  });
});

describe('actionsLogger.untrusted', () => {
  test('our own lines resume commands first, so our annotations and masks count', () => {
    const out: string[] = [];
    const spy = jest.spyOn(process.stdout, 'write').mockImplementation(chunk => {
      out.push(String(chunk));
      return true;
    });
    try {
      actionsLogger.untrusted('#1 ##[save-state name=x;]y\n::warning::planted');
      actionsLogger.warning('ours');
      actionsLogger.untrusted('more');
      actionsLogger.info('ours too');
    } finally {
      spy.mockRestore();
    }
    const lines = out.join('').split('\n');
    const stop = lines.find(l => l.startsWith('::stop-commands::')) ?? '';
    const token = stop.slice('::stop-commands::'.length);
    expect(token).toMatch(/^[0-9a-f]{32}$/);
    const start = lines.indexOf(stop);
    expect(lines.slice(start)).toEqual([
      stop,
      '#1 ##[save-state name=x;]y',
      '::warning::planted',
      `::${token}::`,
      '::warning::ours',
      stop,
      'more',
      `::${token}::`,
      'ours too',
      ''
    ]);
    // The token was registered as a mask before its first use (by this test or an earlier one in the file).
  });
});
