/**
 * Logger is how core talks to the user. The GitHub adapter maps it onto @actions/core;
 * tests and the CLI use their own. `group` wraps one phase of work.
 */
export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  warning(message: string): void;
  error(message: string): void;
  group<T>(title: string, fn: () => Promise<T>): Promise<T>;
  /** Registers a value that must never be printed (every line of it for multi-line values). */
  setSecret(value: string): void;
}

/** A logger that drops everything; for tests and library use. */
export const nullLogger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warning: () => undefined,
  error: () => undefined,
  group: (_title, fn) => fn(),
  setSecret: () => undefined
};
