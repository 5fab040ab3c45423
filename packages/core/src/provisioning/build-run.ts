import type {ActionIO} from './action-io.js';
import type {BuildContext} from './build-attempts.js';
import type {RunRecorder} from '../report/run-recorder.js';
import {setBuildOutputs, type BuildFacts} from './build-outputs.js';
import type {BuildTarget} from './build-target.js';
import type {StepRun} from './step-run.js';

/**
 * The action's build on the ready builder. It is a callback because the run decides when it runs: again on
 * a retry, on new builders, under a signal the watchdog aborts when a builder is lost. It must use
 * `ctx.signal`, call `ctx.reportRun` once its command ran, and throw a BuildCommandError (with the output)
 * when the command fails.
 */
export type BuildFn<R> = (target: BuildTarget, ctx: BuildContext) => Promise<R>;

/** How a run builds on its builder: assigned (assigned-builder.ts), local fallback or shared (the `builder` input). */
export interface BuildStrategy {
  readonly target: BuildTarget;
  /** Runs `build` (retried where the strategy can check and replace builders), then cleans up what it made. */
  build<R>(build: BuildFn<R>): Promise<R>;
  /** What the run's outputs tell, once build() ended (also after a failure). */
  readonly facts: BuildFacts;
}

/**
 * A build step's run once it has a builder (BuildStep.acquire): build() runs the action's build through the
 * strategy, sets the run's outputs (attempts, time to ready, cache), ends the run record and closes the API client.
 */
export class BuildRun {
  readonly #run: StepRun;
  readonly #strategy: BuildStrategy;
  readonly #io: Pick<ActionIO, 'setOutput'>;

  constructor(run: StepRun, strategy: BuildStrategy, io: Pick<ActionIO, 'setOutput'>) {
    this.#run = run;
    this.#strategy = strategy;
    this.#io = io;
  }

  async build<R>(build: BuildFn<R>): Promise<R> {
    try {
      const result = await this.#strategy.build(build);
      this.#run.finish();
      return result;
    } catch (e) {
      this.#run.finish(e);
      throw e;
    } finally {
      setBuildOutputs(this.#io, this.#strategy.facts);
      this.#run.close();
    }
  }
}

/**
 * The one build of a builder this step did not assign (the `builder` input, a local fallback): no watchdog
 * and no retry, since nothing here can check or replace such a builder.
 */
export function singleAttempt(signal: AbortSignal | undefined, recorder: RunRecorder, fallback?: string): BuildContext {
  return {
    signal,
    attempt: 1,
    reportRun: f => recorder.built(f.buildMs),
    reportResult: r => recorder.result(fallback !== undefined ? {...r, fallback} : r)
  };
}
