import {Env} from '../inputs.js';
import {EarlyPhase, type RunRecord} from '../report/run-record.js';
import {RunRecorder} from '../report/run-recorder.js';
import {State} from '../state.js';
import type {ActionIO} from '../adapters/action-io.js';
import {failedOutcome} from './outcome.js';
import {buildSummaryEnabled} from './summary-env.js';

type EarlyIO = Pick<ActionIO, 'state' | 'env' | 'logger' | 'getInput'>;

export interface EarlyFailureOpts {
  action: RunRecord['action'];
  phase: EarlyPhase;
  error: unknown;
  /** DOCKER_BUILD_SUMMARY as the step read it; read here when the step failed before it did. */
  summary?: boolean;
  /** Inputs whose values are secrets (the API key, github-token): scrubbed from the error. */
  secretInputs: readonly string[];
  signal?: AbortSignal;
}

/**
 * A step that failed before anything was assigned (a bad input, buildx missing or failing to install, a local
 * check such as bake's definition) has no run yet: this records one, with no builder, its phase and the error,
 * so post writes the short failure block the README promises. A run already recorded is left as it is.
 */
export function recordEarlyFailure(io: EarlyIO, opts: EarlyFailureOpts): void {
  if (io.state.get(State.Run)) return;
  const secrets = [
    ...opts.secretInputs.map(name => io.getInput(name)),
    io.env[Env.ApiKey] ?? '',
    io.env[Env.RunnerToken] ?? ''
  ].map(s => s.trim());
  const recorder = new RunRecorder({
    action: opts.action,
    state: io.state,
    summary: opts.summary ?? buildSummaryEnabled(io),
    secrets
  });
  recorder.phase(opts.phase);
  recorder.finish(failedOutcome(opts.error, opts.signal), opts.error);
}

/** Reads the step's inputs (`read` throws InputError on a bad one); a bad input is recorded, then thrown on. */
export function readStepInputs<T>(
  io: EarlyIO,
  opts: Pick<EarlyFailureOpts, 'action' | 'secretInputs'>,
  read: () => T
): T {
  try {
    return read();
  } catch (error) {
    recordEarlyFailure(io, {...opts, phase: EarlyPhase.Inputs, error});
    throw error;
  }
}

/** Runs `fn` (an early phase); its error is recorded with recordEarlyFailure, then thrown on. */
export async function earlyPhase<T>(
  io: EarlyIO,
  opts: Omit<EarlyFailureOpts, 'error'>,
  fn: () => T | Promise<T>
): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    recordEarlyFailure(io, {...opts, error});
    throw error;
  }
}
