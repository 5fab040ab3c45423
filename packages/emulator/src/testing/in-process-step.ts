// An action's main step run in this process (its source, not its bundle), logging on @actions/core as on a
// runner: what it writes to stdout is captured and read back with the runner harness's workflow-command parser.
// For integration tests that need the step's own code (a fake docker writing what buildx writes), not a bundle.
import {MemoryStateStore, type ActionIO} from '@remote-builder-actions/core';
import {actionsLogger} from '@remote-builder-actions/core/actions';
import {parseWorkflowCommands, type Annotation} from '../harness/workflow-command-parser.js';
import {RUNNER_DEFAULTS} from '../harness/runner-env.js';

export interface InProcessStepOpts {
  /** GITHUB_WORKSPACE. */
  workspace: string;
  /** RUNNER_TEMP. */
  runnerTemp: string;
  inputs: Record<string, string>;
  env?: Record<string, string>;
}

export interface InProcessStepResult {
  /** stdout, line by line. */
  lines: string[];
  /** The `::warning` annotations among them. */
  warnings: Annotation[];
}

/** Runs `step` with an ActionIO of these inputs and env; rejects as the step does. */
export async function runStepInProcess(
  step: (io: ActionIO) => Promise<unknown>,
  opts: InProcessStepOpts
): Promise<InProcessStepResult> {
  const io: ActionIO = {
    logger: actionsLogger,
    state: new MemoryStateStore(),
    env: {...RUNNER_DEFAULTS, GITHUB_WORKSPACE: opts.workspace, RUNNER_TEMP: opts.runnerTemp, ...opts.env},
    getInput: n => (opts.inputs[n] ?? '').trim(),
    setOutput: () => undefined,
    exportVariable: () => undefined,
    writeMarkdownSummary: async () => undefined,
    setFailed: () => undefined
  };
  const out: string[] = [];
  const write = process.stdout.write;
  process.stdout.write = ((chunk: string | Uint8Array) => {
    out.push(String(chunk));
    return true;
  }) as typeof process.stdout.write;
  try {
    await step(io);
  } finally {
    process.stdout.write = write;
  }
  const lines = out.join('').split('\n');
  return {lines, warnings: parseWorkflowCommands(lines).annotations.filter(a => a.level === 'warning')};
}

/** Sets process environment variables (a child such as the fake docker inherits them); returns their undo. */
export function setProcessEnv(vars: Record<string, string>): () => void {
  const saved = Object.keys(vars).map(k => [k, process.env[k]] as const);
  Object.assign(process.env, vars);
  return () => {
    for (const [k, v] of saved) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
}
