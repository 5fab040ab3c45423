// The example workflows under examples/: parsed with `yaml`, their steps checked against the actions'
// action.yml (every `uses:` resolves, every `with:` key is an input, every required input is given), and the
// `${{ }}` expressions they use expanded the way the runner does. Both the local examples suite and the
// generator of .github/workflows/examples.yml read them through this file.
import {readdirSync, readFileSync} from 'node:fs';
import {dirname, join, resolve} from 'node:path';
import {parse} from 'yaml';
import {ROOT} from './actions.js';

export const EXAMPLES_DIR = join(ROOT, 'examples');

/** One input or output of an action.yml. */
export interface ActionInput {
  description?: string;
  required?: boolean;
  default?: string;
}

/** The parts of an action.yml the examples need. */
export interface ActionManifest {
  name: string;
  /** actions/<name>/action.yml */
  file: string;
  inputs: Record<string, ActionInput>;
  outputs: Record<string, {description?: string}>;
  runs: {using: string; main: string; post?: string};
  /** runs.main and runs.post resolved against the action's folder, as the runner resolves them. */
  mainScript: string;
  postScript?: string;
}

/** Reads actions/<name>/action.yml; throws naming the file when it lacks inputs or runs. */
export function loadActionManifest(name: string): ActionManifest {
  const file = join(ROOT, 'actions', name, 'action.yml');
  const doc = parse(readFileSync(file, 'utf8')) as Partial<ActionManifest> | null;
  if (!doc?.runs?.main) throw new Error(`${file}: no runs.main`);
  const dir = dirname(file);
  return {
    name,
    file,
    inputs: doc.inputs ?? {},
    outputs: doc.outputs ?? {},
    runs: doc.runs,
    mainScript: resolve(dir, doc.runs.main),
    ...(doc.runs.post ? {postScript: resolve(dir, doc.runs.post)} : {})
  };
}

/** The actions of this repository (folders under actions/). */
export function ourActionNames(): string[] {
  return readdirSync(join(ROOT, 'actions'), {withFileTypes: true})
    .filter(d => d.isDirectory())
    .map(d => d.name)
    .sort();
}

/** A step as written in a workflow. */
export interface WorkflowStep {
  id?: string;
  name?: string;
  uses?: string;
  with?: Record<string, string | number | boolean>;
  run?: string;
  env?: Record<string, string>;
  shell?: string;
  if?: string;
}

export interface WorkflowJob {
  'runs-on': string;
  env?: Record<string, string>;
  steps: WorkflowStep[];
  [key: string]: unknown;
}

export interface Workflow {
  name: string;
  on: unknown;
  permissions?: Record<string, string>;
  env?: Record<string, string>;
  jobs: Record<string, WorkflowJob>;
}

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
      return {id: f.replace(/\.yml$/, ''), file, workflow: parse(readFileSync(file, 'utf8')) as Workflow};
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
export const FOREIGN_ACTIONS = ['actions/checkout@v4', 'docker/login-action@v3'] as const;

/** Ours in the published form (`<owner>/remote-builder-actions/actions/<name>@<ref>`) or the local one. */
const PUBLISHED = /^[^/\s]+\/remote-builder-actions\/actions\/([a-z-]+)@[\w.-]+$/;
const LOCAL = /^\.\/actions\/([a-z-]+)$/;

/** What a step runs; throws naming the step when its `uses:` is not one the examples may use. */
export function stepKind(step: WorkflowStep, where: string): StepKind {
  if (step.run !== undefined && step.uses === undefined) return {kind: 'run'};
  const uses = step.uses ?? '';
  const ours = PUBLISHED.exec(uses) ?? LOCAL.exec(uses);
  if (ours) {
    const action = ours[1] as string;
    if (!ourActionNames().includes(action))
      throw new Error(`${where}: uses ${uses}, but there is no actions/${action}`);
    return {kind: 'ours', action};
  }
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

/** The contexts an expression may read. */
export interface ExpressionContext {
  secrets: Record<string, string>;
  vars: Record<string, string>;
  env: Record<string, string>;
  github: Record<string, string>;
  /** steps.<id>.outputs.<name> */
  steps: Record<string, {outputs: Record<string, string>}>;
}

/**
 * Expands every `${{ a.b.c }}` in text, as the runner does before a step sees it. Only property paths of the
 * contexts above; anything else (operators, functions) throws, naming it, so an example cannot depend on an
 * expression this suite does not evaluate. A missing secret, variable or output is '' (as on the runner).
 */
export function expand(text: string, ctx: ExpressionContext): string {
  return text.replace(/\$\{\{\s*(.*?)\s*\}\}/g, (_, expr: string) => {
    const path = /^(secrets|vars|env|github)\.([A-Za-z_][\w-]*)$/.exec(expr);
    if (path) return ctx[path[1] as 'secrets' | 'vars' | 'env' | 'github'][path[2] as string] ?? '';
    const out = /^steps\.([A-Za-z_][\w-]*)\.outputs\.([A-Za-z_][\w-]*)$/.exec(expr);
    if (out) return ctx.steps[out[1] as string]?.outputs[out[2] as string] ?? '';
    throw new Error(`the expression \${{ ${expr} }} is not one the examples suite evaluates`);
  });
}
