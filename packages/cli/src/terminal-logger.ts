import type {Logger} from '@remote-builder-actions/core';
import type {TextSink} from './output.js';

export interface TerminalLoggerOpts {
  /** Progress goes here (stderr), so stdout carries only results. */
  stream: TextSink;
  /** Print debug lines. */
  verbose?: boolean;
  /** While a group runs longer than this, print a "still …" line this often; 0 disables (default 15000). */
  progressIntervalMs?: number;
  /** Time source for the elapsed time of groups (default Date.now). */
  now?: () => number;
}

/**
 * TerminalLogger is core's Logger for a terminal: plain lines on stderr, `==> title` per group with a
 * periodic "still …" line while a long group (waiting for a builder) runs, and every registered secret masked.
 */
export class TerminalLogger implements Logger {
  readonly #stream: TextSink;
  readonly #verbose: boolean;
  readonly #intervalMs: number;
  readonly #now: () => number;
  readonly #secrets = new Set<string>();

  constructor(opts: TerminalLoggerOpts) {
    this.#stream = opts.stream;
    this.#verbose = opts.verbose ?? false;
    this.#intervalMs = opts.progressIntervalMs ?? 15000;
    this.#now = opts.now ?? Date.now;
  }

  debug(message: string): void {
    if (this.#verbose) this.#write(`debug: ${message}`);
  }

  info(message: string): void {
    this.#write(message);
  }

  warning(message: string): void {
    this.#write(`warning: ${message}`);
  }

  error(message: string): void {
    this.#write(`error: ${message}`);
  }

  async group<T>(title: string, fn: () => Promise<T>): Promise<T> {
    this.#write(`==> ${title}`);
    if (this.#intervalMs <= 0) return fn();
    const started = this.#now();
    const what = title.charAt(0).toLowerCase() + title.slice(1);
    const timer = setInterval(() => {
      this.#write(`    … still ${what} (${Math.round((this.#now() - started) / 1000)} s)`);
    }, this.#intervalMs);
    timer.unref();
    try {
      return await fn();
    } finally {
      clearInterval(timer);
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
    this.#stream.write(`${this.mask(line)}\n`);
  }
}
