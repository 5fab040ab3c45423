/** A `docker buildx` command failed (locally: retrying on another profile would not help). */
export class BuildxError extends Error {
  /** The command was killed at its time limit. */
  readonly timedOut: boolean;
  constructor(message: string, opts: {timedOut?: boolean} = {}) {
    super(message);
    this.name = 'BuildxError';
    this.timedOut = opts.timedOut ?? false;
  }
}
