/** UsageError is a bad command line: unknown command or option, missing or malformed value (exit code 2). */
export class UsageError extends Error {
  /** The command whose help to point at, e.g. `runners create`; undefined for the top level. */
  readonly command?: string;

  constructor(message: string, command?: string) {
    super(message);
    this.name = 'UsageError';
    this.command = command;
  }
}
