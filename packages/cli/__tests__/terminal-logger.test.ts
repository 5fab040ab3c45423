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
  expect(out.text).toBe(
    'info\nremote-builder: warning: careful\nremote-builder: error: bad\n==> Phase one\ndebug: shown\n'
  );
});

test('wording rewrites every line, before the secrets are masked', () => {
  const out = new Capture();
  const logger = new TerminalLogger({stream: out, progressIntervalMs: 0, wording: l => l.replace('runner', 'machine')});
  logger.setSecret('s3cret');
  logger.error('on the runner with s3cret');
  logger.info('runner');
  expect(out.text).toBe('remote-builder: error: on the machine with ***\nmachine\n');
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

/** A Ticker the test drives: tick() runs the registered callback as one interval elapsing. */
class ManualTicker {
  readonly intervals: number[] = [];
  #tick: (() => void) | undefined;
  readonly ticker = (ms: number, tick: () => void): (() => void) => {
    this.intervals.push(ms);
    this.#tick = tick;
    return () => (this.#tick = undefined);
  };
  get running(): boolean {
    return this.#tick !== undefined;
  }
  tick(): void {
    this.#tick?.();
  }
}

test('a group that goes quiet gets a "still …" line per silent interval, until it ends', async () => {
  const out = new Capture();
  const ticks = new ManualTicker();
  let now = 0;
  const logger = new TerminalLogger({stream: out, progressIntervalMs: 15000, now: () => now, ticker: ticks.ticker});
  await logger.group('Assigning a builder from profile "p"', async () => {
    expect(ticks.intervals).toEqual([15000]);
    now = 15000;
    ticks.tick();
    now = 30000;
    ticks.tick();
  });
  expect(ticks.running).toBe(false);
  expect(out.text).toBe(
    '==> Assigning a builder from profile "p"\n' +
      '    … still assigning a builder from profile "p" (15 s)\n' +
      '    … still assigning a builder from profile "p" (30 s)\n'
  );
});

test('no "still …" line after an interval in which something else was printed (readiness progress)', async () => {
  const out = new Capture();
  const ticks = new ManualTicker();
  let now = 0;
  const logger = new TerminalLogger({stream: out, progressIntervalMs: 15000, now: () => now, ticker: ticks.ticker});
  await logger.group('Waiting for 1 builder to be ready', async () => {
    now = 10000;
    logger.info('Still waiting after 10 s of 300 s: bld_1 pending');
    now = 15000;
    ticks.tick(); // the interval had a line: quiet
    now = 20000;
    logger.info('Still waiting after 20 s of 300 s: bld_1 pending');
    now = 30000;
    ticks.tick(); // again
    logger.debug('hidden: not verbose, so not output');
    now = 45000;
    ticks.tick(); // a silent interval: the tick line
  });
  expect(out.text.split('\n').filter(l => l !== '')).toEqual([
    '==> Waiting for 1 builder to be ready',
    'Still waiting after 10 s of 300 s: bld_1 pending',
    'Still waiting after 20 s of 300 s: bld_1 pending',
    '    … still waiting for 1 builder to be ready (45 s)'
  ]);
});

test('progressIntervalMs 0: no ticker at all', async () => {
  const ticks = new ManualTicker();
  const logger = new TerminalLogger({stream: new Capture(), progressIntervalMs: 0, ticker: ticks.ticker});
  await logger.group('x', async () => undefined);
  expect(ticks.intervals).toEqual([]);
});
