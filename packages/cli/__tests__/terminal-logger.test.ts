import {expect, test} from '@jest/globals';
import {TerminalLogger} from '../src/terminal-logger.js';
import {Capture} from './helpers.js';

test('levels, groups and debug only when verbose', async () => {
  const out = new Capture();
  const quiet = new TerminalLogger({stream: out, progressIntervalMs: 0});
  quiet.debug('hidden');
  quiet.info('info');
  quiet.warning('careful');
  quiet.error('bad');
  expect(await quiet.group('Phase one', async () => 7)).toBe(7);
  new TerminalLogger({stream: out, verbose: true}).debug('shown');
  expect(out.text).toBe('info\nwarning: careful\nerror: bad\n==> Phase one\ndebug: shown\n');
});

test('secrets are masked, longest first', () => {
  const out = new Capture();
  const logger = new TerminalLogger({stream: out});
  logger.setSecret('abc');
  logger.setSecret('abcdef');
  logger.setSecret('');
  logger.info('key abcdef and abc');
  expect(out.text).toBe('key *** and ***\n');
  expect(logger.mask('xabcx')).toBe('x***x');
});

test('a long group prints "still …" lines until it ends', async () => {
  const out = new Capture();
  let now = 0;
  const logger = new TerminalLogger({stream: out, progressIntervalMs: 20, now: () => now});
  await logger.group('Waiting for 1 builder to be ready', async () => {
    now = 40000;
    await new Promise(r => setTimeout(r, 70));
  });
  const lines = out.text.trim().split('\n');
  expect(lines[0]).toBe('==> Waiting for 1 builder to be ready');
  expect(lines.length).toBeGreaterThanOrEqual(2);
  expect(lines[1]).toBe('    … still waiting for 1 builder to be ready (40 s)');
  const count = out.chunks.length;
  await new Promise(r => setTimeout(r, 50));
  expect(out.chunks.length).toBe(count);
});
