import type {BuildContext} from './build-attempts.js';
import type {RunRecorder} from '../report/run-recorder.js';
import type {BuildFacts} from './build-outputs.js';
import type {BuildTarget} from './build-target.js';

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
