import type {Logger} from '../logger.js';
import type {StateStore} from '../state.js';

/**
 * ActionIO is everything an action step exchanges with the runner. The adapter implements it on
 * @actions/core; tests use a fake. Secrets never go through setOutput, exportVariable or the summary.
 */
export interface ActionIO {
  logger: Logger;
  state: StateStore;
  /** Raw input value, trimmed; '' when unset. */
  getInput(name: string): string;
  setOutput(name: string, value: string): void;
  exportVariable(name: string, value: string): void;
  /** Appends GitHub-flavoured markdown to the job summary (the run report). */
  writeMarkdownSummary(markdown: string): Promise<void>;
  setFailed(message: string): void;
  env: NodeJS.ProcessEnv;
}
