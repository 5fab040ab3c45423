// The example workflows under examples/: read by the runner harness's workflow reader, their steps checked
// against the actions' action.yml (every `uses:` resolves, every `with:` key is an input, every required
// input is given). Both the local examples suite and the generator of .github/workflows/examples.yml read
// them through this file.
import {readdirSync} from 'node:fs';
import {join} from 'node:path';
import {
  loadActionManifest,
  ourAction,
  readWorkflow,
  type Workflow,
  type WorkflowStep
} from '@remote-builder-actions/emulator';
import {ROOT} from './actions.js';

// The reader lives in the runner harness (packages/emulator/src/harness/workflow-file.ts), which runs a
// workflow job from a file; these re-exports keep the suites' imports.
export {
  expand,
  loadActionManifest,
  ourActionNames,
  type ActionInput,
  type ActionManifest,
  type ExpressionContext,
  type Workflow,
  type WorkflowJob,
  type WorkflowStep
} from '@remote-builder-actions/emulator';

export const EXAMPLES_DIR = join(ROOT, 'examples');

export interface Example {
  /** File name without .yml, e.g. "multi-arch". */
  id: string;
  file: string;
  workflow: Workflow;
}

/** Every examples/*.yml, parsed. */
export function loadExamples(): Example[] {
  return readdirSync(EXAMPLES_DIR)
    .filter(f => f.endsWith('.yml'))
    .sort()
    .map(f => {
      const file = join(EXAMPLES_DIR, f);
      return {id: f.replace(/\.yml$/, ''), file, workflow: readWorkflow(file)};
    });
}

/** How a `uses:` of an example is run. */
export type StepKind =
  | {kind: 'ours'; action: string}
  /** Another action the examples may use; run by the local suite as described in FOREIGN_ACTIONS. */
  | {kind: 'foreign'; action: string}
  | {kind: 'run'};

/**
 * Other actions the examples may use. `actions/checkout` fills the workspace with the example's fixture files;
 * `docker/login-action` is skipped locally and in CI (the recording fake docker knows only buildx, and no
 * registry accepts the push of a fork's pull request): pushes go nowhere.
 */
export const FOREIGN_ACTIONS = [
  'actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1',
  'docker/login-action@4907a6ddec9925e35a0a9e82d7399ccc52663121'
] as const;

/** The version each pinned SHA is (the `# vX.Y.Z` comment our workflows write beside it). */
export const PINNED_VERSIONS: Readonly<Record<string, string>> = {
  'actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1': 'v7.0.1',
  'actions/setup-node@820762786026740c76f36085b0efc47a31fe5020': 'v7.0.0',
  'docker/login-action@4907a6ddec9925e35a0a9e82d7399ccc52663121': 'v4.1.0'
};

/** What a step runs; throws naming the step when its `uses:` is not one the examples may use. */
export function stepKind(step: WorkflowStep, where: string): StepKind {
  if (step.run !== undefined && step.uses === undefined) return {kind: 'run'};
  const uses = step.uses ?? '';
  const action = ourAction(uses, where);
  if (action) return {kind: 'ours', action};
  if ((FOREIGN_ACTIONS as readonly string[]).includes(uses)) return {kind: 'foreign', action: uses};
  throw new Error(
    `${where}: uses "${uses}": use ./actions/<name>, <owner>/remote-builder-actions/actions/<name>@v1 or one of ${FOREIGN_ACTIONS.join(', ')}`
  );
}

/**
 * Lint of one workflow: every step runs something known, `with:` keys of our actions are inputs of their
 * action.yml, required inputs are given, ids are unique. Returns the problems (empty when fine).
 */
export function lintWorkflow(workflow: Workflow, label: string): string[] {
  const problems: string[] = [];
  for (const key of ['name', 'on', 'jobs'] as const) {
    if (workflow[key] === undefined) problems.push(`${label}: no top-level "${key}"`);
  }
  for (const [jobId, job] of Object.entries(workflow.jobs ?? {})) {
    if (!job['runs-on']) problems.push(`${label} job ${jobId}: no runs-on`);
    const ids = new Set<string>();
    (job.steps ?? []).forEach((step, i) => {
      const where = `${label} job ${jobId} step ${i + 1}${step.id ? ` (${step.id})` : ''}`;
      if (step.id !== undefined) {
        if (ids.has(step.id)) problems.push(`${where}: id "${step.id}" is used twice`);
        ids.add(step.id);
      }
      if ((step.run === undefined) === (step.uses === undefined)) {
        problems.push(`${where}: needs exactly one of uses and run`);
        return;
      }
      let kind: StepKind;
      try {
        kind = stepKind(step, where);
      } catch (e) {
        problems.push((e as Error).message);
        return;
      }
      if (kind.kind !== 'ours') return;
      const manifest = loadActionManifest(kind.action);
      const given = Object.keys(step.with ?? {});
      for (const k of given) {
        if (!(k in manifest.inputs)) {
          problems.push(`${where}: "${k}" is not an input of actions/${kind.action} (see its action.yml)`);
        }
      }
      for (const [k, input] of Object.entries(manifest.inputs)) {
        if (input.required && !given.includes(k)) problems.push(`${where}: required input "${k}" is missing`);
      }
    });
  }
  return problems;
}
