import type {CacheReport} from '../docker/cache-report.js';
import type {ActionIO} from '../adapters/action-io.js';
import {BuildStepOutput} from './action-inputs.js';

/** What a build run tells about its attempts, its builders and the cache (each only when known). */
export interface BuildFacts {
  /** Builds run: after an assignment, or 1 on a local fallback builder; unknown on a shared builder. */
  attempts?: number;
  /** Assignment → ready over every assignment, ms; only after an assignment. */
  timeToReadyMs?: number;
  /** The successful build's cache report, when buildx printed its progress. */
  cache?: CacheReport;
}

/** Sets the build actions' outputs about the run (BuildStepOutput) that `facts` knows. */
export function setBuildOutputs(io: Pick<ActionIO, 'setOutput'>, facts: BuildFacts): void {
  if (facts.attempts !== undefined) io.setOutput(BuildStepOutput.Attempts, String(facts.attempts));
  if (facts.timeToReadyMs !== undefined) io.setOutput(BuildStepOutput.TimeToReady, String(facts.timeToReadyMs));
  if (facts.cache) {
    io.setOutput(BuildStepOutput.CachedSteps, `${facts.cache.cached}/${facts.cache.steps}`);
    io.setOutput(BuildStepOutput.CacheRatio, facts.cache.ratio.toFixed(2));
  }
}
