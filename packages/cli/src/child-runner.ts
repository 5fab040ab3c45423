import {spawn} from 'node:child_process';
import type {TextSink} from './output.js';

export interface ChildOpts {
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Where the command's output goes when not inherited. */
  stdout: TextSink;
  stderr: TextSink;
  /** Give the command this process's stdin, stdout and stderr (a terminal keeps its colours and prompts). */
  inherit: boolean;
}

/** How a command ended: its exit code, the signal that killed it, or why it could not start. */
export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Set when the command could not be started (e.g. not found). */
  error?: Error;
}

export interface RunningChild {
  /** Sends `signal` to the command; ignored once it ended. */
  kill(signal: NodeJS.Signals): void;
  /** Settles once the command ended and its output was written. */
  readonly exited: Promise<ChildExit>;
}

/** ChildRunner starts the command of `builder run`; tests may inject their own. */
export interface ChildRunner {
  start(command: string, args: string[], opts: ChildOpts): RunningChild;
}

/** Runs commands with child_process.spawn (argv, no shell). */
export const nodeChildRunner: ChildRunner = {
  start(command, args, opts) {
    const child = spawn(command, args, {
      env: opts.env,
      cwd: opts.cwd,
      stdio: opts.inherit ? 'inherit' : ['ignore', 'pipe', 'pipe']
    });
    child.stdout?.setEncoding('utf8').on('data', (d: string) => opts.stdout.write(d));
    child.stderr?.setEncoding('utf8').on('data', (d: string) => opts.stderr.write(d));
    let ended = false;
    const exited = new Promise<ChildExit>(resolve => {
      child.once('error', error => {
        ended = true;
        resolve({code: null, signal: null, error});
      });
      child.once('close', (code, signal) => {
        ended = true;
        resolve({code, signal});
      });
    });
    return {
      exited,
      kill(signal) {
        // No pid: the spawn failed (its 'error' is still to come), and Node 20's kill() would then signal an
        // uninitialized pid (possibly 0 or -1: our own group, or everything).
        if (!ended && child.pid !== undefined && child.exitCode === null && child.signalCode === null)
          child.kill(signal);
      }
    };
  }
};
