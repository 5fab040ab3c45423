/**
 * Workflow files and our actions' action.yml, as the runner harness reads them: parsed with `yaml`, a step's
 * `uses:` resolved to one of this repository's actions (local `./actions/<name>` or published
 * `<owner>/remote-builder-actions/actions/<name>@<ref>`, both run from this checkout's dist/), and the `${{ }}`
 * expressions our examples use expanded as the runner does. The examples fault suite reads them through here too.
 */
import {readdirSync, readFileSync} from 'node:fs';
import {dirname, join, resolve} from 'node:path';
import {fileURLToPath} from 'node:url';
import {parse} from 'yaml';

/** This checkout: actions/ and dist/ are under it. */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');

/** One input or output of an action.yml. */
export interface ActionInput {
  description?: string;
  required?: boolean;
  default?: string;
}

/** The parts of an action.yml the harness needs. */
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

/** Reads actions/<name>/action.yml; throws naming the file when it lacks runs.main. */
export function loadActionManifest(name: string, root: string = REPO_ROOT): ActionManifest {
  const file = join(root, 'actions', name, 'action.yml');
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
    postScript: doc.runs.post ? resolve(dir, doc.runs.post) : undefined
  };
}

/** The actions of this repository (folders under actions/). */
export function ourActionNames(root: string = REPO_ROOT): string[] {
  return readdirSync(join(root, 'actions'), {withFileTypes: true})
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
  [key: string]: unknown;
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

/** Parses a workflow file; throws naming the file when it is not YAML or has no jobs. */
export function readWorkflow(file: string): Workflow {
  let doc: unknown;
  try {
    doc = parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`${file}: not a workflow: ${(error as Error).message}`);
  }
  const jobs = (doc as Partial<Workflow> | null)?.jobs;
  if (typeof jobs !== 'object' || jobs === null)
    throw new Error(`${file}: no jobs: a workflow has a top-level "jobs:" map`);
  return doc as Workflow;
}

/** Ours in the published form (`<owner>/remote-builder-actions/actions/<name>@<ref>`) or the local one. */
const PUBLISHED = /^[^/\s]+\/remote-builder-actions\/actions\/([a-z-]+)@[\w.-]+$/;
const LOCAL = /^\.\/actions\/([a-z-]+)$/;

/**
 * The name of our action a `uses:` names, or undefined for any other action. Throws naming the step when
 * it has our form but there is no such folder under actions/.
 */
export function ourAction(uses: string, where: string, root: string = REPO_ROOT): string | undefined {
  const ours = PUBLISHED.exec(uses) ?? LOCAL.exec(uses);
  if (!ours) return undefined;
  const action = ours[1] as string;
  if (!ourActionNames(root).includes(action))
    throw new Error(`${where}: uses ${uses}, but there is no actions/${action}`);
  return action;
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
 * contexts above; anything else (operators, functions) throws, naming it, so a workflow cannot depend on an
 * expression the harness does not evaluate. A missing secret, variable or output is '' (as on the runner).
 */
export function expand(text: string, ctx: ExpressionContext): string {
  return text.replace(/\$\{\{\s*(.*?)\s*\}\}/g, (_, expr: string) => {
    const path = /^(secrets|vars|env|github)\.([A-Za-z_][\w-]*)$/.exec(expr);
    if (path) return ctx[path[1] as 'secrets' | 'vars' | 'env' | 'github'][path[2] as string] ?? '';
    const out = /^steps\.([A-Za-z_][\w-]*)\.outputs\.([A-Za-z_][\w-]*)$/.exec(expr);
    if (out) return ctx.steps[out[1] as string]?.outputs[out[2] as string] ?? '';
    throw new Error(
      `the expression \${{ ${expr} }} is not one the runner harness evaluates (it knows secrets.X, vars.X, env.X, github.X and steps.<id>.outputs.<name>)`
    );
  });
}
