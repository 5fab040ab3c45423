/**
 * Where a warning points in the repository: the properties of a GitHub annotation, as @actions/core's
 * AnnotationProperties (printed as `title=…,file=…,line=…,endLine=…,col=…,endColumn=…`).
 */
export interface AnnotationProperties {
  title?: string;
  /** Path relative to the repository root. */
  file?: string;
  startLine?: number;
  endLine?: number;
  startColumn?: number;
  endColumn?: number;
}

/**
 * Logger is how core talks to the user. The GitHub adapter maps it onto @actions/core;
 * tests and the CLI use their own. `group` wraps one phase of work.
 */
export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  /**
   * Prints text the build or a user's file produced (buildx output, metadata, a bake definition): on the
   * runner with workflow commands suspended, so no line of it is acted on (adapters/untrusted-block.ts).
   */
  untrusted(text: string): void;
  /** A warning; with `properties`, an annotation on that file and line (loggers off a runner may ignore them). */
  warning(message: string, properties?: AnnotationProperties): void;
  error(message: string): void;
  group<T>(title: string, fn: () => Promise<T>): Promise<T>;
  /** Registers a value that must never be printed (every line of it for multi-line values). */
  setSecret(value: string): void;
}

/** A logger that drops everything; for tests and library use. */
export const nullLogger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  untrusted: () => undefined,
  warning: () => undefined,
  error: () => undefined,
  group: (_title, fn) => fn(),
  setSecret: () => undefined
};
