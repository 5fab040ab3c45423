// The command of `builder run` as a test scripts it, injected as CliDeps.spawn: no process is started. The real
// spawn (nodeChildRunner) is tested in child-runner.test.ts and end to end in bin.test.ts and builder.test.ts.
import type {ChildExit, ChildOpts, ChildRunner, RunningChild} from '../src/child-runner.js';

export interface Started {
  command: string;
  args: string[];
  opts: ChildOpts;
}

/** What the command does when it starts, and on each signal; `end` ends it. */
export interface Script {
  onStart?: (started: Started, end: (exit: ChildExit) => void) => void;
  /** Default: the signal kills it. */
  onSignal?: (signal: NodeJS.Signals, started: Started, end: (exit: ChildExit) => void) => void;
}

export class FakeCommand implements ChildRunner {
  started?: Started;
  /** The signals passed to it, in order. */
  readonly signals: NodeJS.Signals[] = [];
  readonly #script: Script;

  constructor(script: Script = {}) {
    this.#script = script;
  }

  start(command: string, args: string[], opts: ChildOpts): RunningChild {
    const started: Started = {command, args, opts};
    this.started = started;
    let end!: (exit: ChildExit) => void;
    let ended = false;
    const exited = new Promise<ChildExit>(resolve => {
      end = exit => {
        ended = true;
        resolve(exit);
      };
    });
    this.#script.onStart?.(started, end);
    return {
      exited,
      kill: signal => {
        if (ended) return;
        this.signals.push(signal);
        if (this.#script.onSignal) this.#script.onSignal(signal, started, end);
        else end({code: null, signal});
      }
    };
  }
}
