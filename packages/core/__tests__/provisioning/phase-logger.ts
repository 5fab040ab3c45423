import type {Logger} from '../../src/logger.js';

/** One thing a PhaseLogger saw: a group opened or closed, or a line (with the group it landed in). */
export type PhaseEvent =
  | {kind: 'open'; title: string}
  | {kind: 'close'; title: string}
  | {kind: 'line'; level: string; message: string; group: string | undefined};

/**
 * PhaseLogger records when each group opens and closes and which group every line lands in (undefined:
 * outside any group). Groups do not nest in a GitHub log, so opening one inside another is recorded too.
 */
export class PhaseLogger implements Logger {
  readonly events: PhaseEvent[] = [];
  readonly nested: string[] = [];
  #open: string | undefined;

  debug(message: string): void {
    this.#line('debug', message);
  }
  info(message: string): void {
    this.#line('info', message);
  }
  untrusted(message: string): void {
    this.#line('untrusted', message);
  }
  warning(message: string): void {
    this.#line('warning', message);
  }
  error(message: string): void {
    this.#line('error', message);
  }
  async group<T>(title: string, fn: () => Promise<T>): Promise<T> {
    if (this.#open !== undefined) this.nested.push(`${title} inside ${this.#open}`);
    const outer = this.#open;
    this.#open = title;
    this.events.push({kind: 'open', title});
    try {
      return await fn();
    } finally {
      this.events.push({kind: 'close', title});
      this.#open = outer;
    }
  }
  setSecret(): void {
    // nothing to mask in these tests
  }

  /** Group titles in the order they opened. */
  get groups(): string[] {
    return this.events.flatMap(e => (e.kind === 'open' ? [e.title] : []));
  }

  /** The group (its title) the first line containing `text` landed in; throws when no line has it. */
  groupOf(text: string): string | undefined {
    const line = this.events.find(e => e.kind === 'line' && e.message.includes(text));
    if (!line || line.kind !== 'line') throw new Error(`no line contains ${JSON.stringify(text)}`);
    return line.group;
  }

  #line(level: string, message: string): void {
    this.events.push({kind: 'line', level, message, group: this.#open});
  }
}
