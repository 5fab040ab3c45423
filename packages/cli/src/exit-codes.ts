import {constants} from 'node:os';

/**
 * Exit codes of the CLI. `builder run` exits with its command's code instead (128 + n when the command was
 * killed by signal n, 127 when it could not be started), or 1 when the command succeeded but the builders
 * could not all be torn down.
 */
export enum ExitCode {
  /** Done. */
  Ok = 0,
  /**
   * The service, docker, the network or the file system failed, something may still be billed, or
   * `builder down --name` names no builder that is up.
   */
  Failure = 1,
  /** Bad command line or bad input, refused before anything was sent. */
  Usage = 2,
  /** The command of `builder run` could not be started (as in shells). */
  CommandNotFound = 127,
  /** Interrupted by SIGINT (128 + 2); whatever was assigned was torn down first. */
  Interrupted = 130,
  /** Terminated by SIGTERM (128 + 15); whatever was assigned was torn down first. */
  Terminated = 143
}

/** The shell's code for a process ended by `signal`: 128 + its number. */
export function signalExitCode(signal: NodeJS.Signals): number {
  return 128 + (constants.signals[signal] ?? 0);
}
