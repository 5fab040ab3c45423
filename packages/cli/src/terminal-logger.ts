import type {Logger} from '@remote-builder-actions/core';
import type {TextSink} from './output.js';

/** The prefix of every error line the CLI prints (usage errors too), so scripts and eyes find them. */
export const ERROR_PREFIX = 'remote-builder: error: ';
/** The prefix of every warning line. */
const WARNING_PREFIX = 'remote-builder: warning: ';

/** Calls `tick` every `ms` until the returned function is called. */
export type Ticker = (ms: number, tick: () => void) => () => void;

/** setInterval, not holding the process open. */
const intervalTicker: Ticker = (ms, tick) => {
  const timer = setInterval(tick, ms);
  timer.unref();
  return () => clearInterval(timer);
};

export interface TerminalLoggerOpts {
  /** Progress goes here (stderr), so stdout carries only results. */
  stream: TextSink;
  /** Print debug lines. */
  verbose?: boolean;
  /**
   * While a group runs, print a "still …" line when nothing else was printed for this long; 0 disables
   * (default 15000).
   */
  progressIntervalMs?: number;
  /** Time source for the elapsed time of groups (default Date.now). */
  now?: () => number;
  /** Drives the "still …" check [setInterval]. */
  ticker?: Ticker;
  /** Rewrites every line before it is printed, e.g. inCliWords [none]. */
  wording?: (line: string) => string;
}

/**
 * TerminalLogger is core's Logger for a terminal: plain lines on stderr, `==> title` per group, errors and
 * warnings prefixed with `remote-builder: error:` / `remote-builder: warning:`, and every registered secret
 * masked (after the `wording` rewrite, if any). A group that goes quiet (an assignment the service holds, a slow teardown) gets a "… still …
 * (N s)" line after each silent interval; waits that report their own progress (core's readiness prints
 * "Still waiting after N s of T s" every 10 s) keep it quiet, so the two never repeat each other.
 */
export class TerminalLogger implements Logger {
  readonly #stream: TextSink;
  readonly #verbose: boolean;
  readonly #intervalMs: number;
  readonly #now: () => number;
  readonly #ticker: Ticker;
  readonly #wording: (line: string) => string;
  readonly #secrets = new Set<string>();
  /** Bumped by every line written (debug lines hidden by !verbose do not count). */
  #written = 0;

  constructor(opts: TerminalLoggerOpts) {
    this.#stream = opts.stream;
    this.#verbose = opts.verbose ?? false;
    this.#intervalMs = opts.progressIntervalMs ?? 15000;
    this.#now = opts.now ?? Date.now;
    this.#ticker = opts.ticker ?? intervalTicker;
    this.#wording = opts.wording ?? (line => line);
  }

  debug(message: string): void {
    if (this.#verbose) this.#write(`debug: ${message}`);
  }

  info(message: string): void {
    this.#write(message);
  }

  /** A terminal runs no workflow commands: untrusted text is printed as it is (masked). */
  untrusted(text: string): void {
    this.#write(text);
  }

  warning(message: string): void {
    this.#write(`${WARNING_PREFIX}${message}`);
  }

  error(message: string): void {
    this.#write(`${ERROR_PREFIX}${message}`);
  }

  async group<T>(title: string, fn: () => Promise<T>): Promise<T> {
    this.#write(`==> ${title}`);
    if (this.#intervalMs <= 0) return fn();
    const started = this.#now();
    const what = title.charAt(0).toLowerCase() + title.slice(1);
    let seen = this.#written;
    const stop = this.#ticker(this.#intervalMs, () => {
      // Only after a whole interval without output: a wait printing its own progress needs no second line.
      if (this.#written === seen) {
        this.#write(`    … still ${what} (${Math.round((this.#now() - started) / 1000)} s)`);
      }
      seen = this.#written;
    });
    try {
      return await fn();
    } finally {
      stop();
    }
  }

  setSecret(value: string): void {
    if (value !== '') this.#secrets.add(value);
  }

  /** `text` with every registered secret replaced by ***. */
  mask(text: string): string {
    let out = text;
    for (const s of [...this.#secrets].sort((a, b) => b.length - a.length)) out = out.split(s).join('***');
    return out;
  }

  #write(line: string): void {
    this.#written++;
    this.#stream.write(`${this.mask(this.#wording(line))}\n`);
  }
}
