// Runs one job of an example workflow the way the GitHub runner does, through the runner harness: steps in
// order, each its own process with fresh command files; our actions' main from their action.yml (inputs:
// the action.yml defaults, then `with:`), a `run:` step with `bash -e`, GITHUB_ENV and GITHUB_PATH carried
// to later steps, `${{ }}` expanded before a step starts, a failed step skipping the rest; then the post
// steps in reverse order, each with its own main's state, whatever happened (`post-if: always()`).
import {mkdirSync, writeFileSync} from 'node:fs';
import {dirname, join, relative} from 'node:path';
import {runAction, RUNNER_DEFAULTS, type ActionRunResult, type Emulator} from '@remote-builder-actions/emulator';
import {DIST, ROOT} from './actions.js';
import type {ExampleSetup} from './examples-setup.js';
import {
  expand,
  loadActionManifest,
  stepKind,
  type Example,
  type ExpressionContext,
  type WorkflowStep
} from './examples-workflow.js';

export interface ExampleJobOpts {
  example: Example;
  jobId: string;
  setup: ExampleSetup;
  emu: Emulator;
  apiKey: string;
  /** The job's folder: workspace/ and runner-temp/ go under it. */
  workDir: string;
  /** The runner machine's environment (e.g. the fake docker on PATH). */
  env: Record<string, string>;
  timeoutMs?: number;
}

/** One step as it ran (or why it did not). */
export interface StepRecord {
  label: string;
  hook: 'main' | 'post';
  /** Absent for a skipped step. */
  result?: ActionRunResult;
  skipped?: string;
}

export interface ExampleJobResult {
  steps: StepRecord[];
  /** steps.<id>.outputs after the job. */
  outputs: Record<string, Record<string, string>>;
  /** Every warning annotation of every step. */
  warnings: string[];
  /** The first failed step's label, or ''. */
  failedStep: string;
  /** Everything every step printed, for failure messages. */
  log: string;
}

/** A post step waiting for the end of the job. */
interface PendingPost {
  label: string;
  script: string;
  inputs: Record<string, string>;
  state: Record<string, string>;
  stepEnv: Record<string, string>;
}

/** The GitHub token the runner would give; not a real one. */
const FAKE_GITHUB_TOKEN = 'ghs_examplesSuiteFakeToken000000000000';

export async function runExampleJob(opts: ExampleJobOpts): Promise<ExampleJobResult> {
  const {example, jobId, setup, emu, workDir} = opts;
  const job = example.workflow.jobs[jobId];
  if (!job) throw new Error(`${example.file}: no job ${jobId}`);
  const workspace = join(workDir, 'workspace');
  mkdirSync(workspace, {recursive: true});

  const ctx: ExpressionContext = {
    secrets: {REMOTE_BUILDER_API_KEY: opts.apiKey, GITHUB_TOKEN: FAKE_GITHUB_TOKEN},
    vars: {REMOTE_BUILDER_API_URL: emu.url},
    env: {},
    github: {
      token: FAKE_GITHUB_TOKEN,
      actor: RUNNER_DEFAULTS['GITHUB_ACTOR'] as string,
      repository: RUNNER_DEFAULTS['GITHUB_REPOSITORY'] as string,
      sha: RUNNER_DEFAULTS['GITHUB_SHA'] as string,
      ref_name: RUNNER_DEFAULTS['GITHUB_REF_NAME'] as string,
      workspace
    },
    steps: {}
  };
  const expandAll = (vars: Record<string, unknown> | undefined): Record<string, string> =>
    Object.fromEntries(Object.entries(vars ?? {}).map(([k, v]) => [k, expand(String(v), ctx)]));
  // The workflow's env, then the job's (each may read the contexts above, not env).
  const jobEnv = {...expandAll(example.workflow.env), ...expandAll(job.env)};
  const exported: Record<string, string> = {};
  const paths: string[] = [];
  const steps: StepRecord[] = [];
  const posts: PendingPost[] = [];
  let failedStep = '';
  const timeoutMs = opts.timeoutMs ?? 60_000;

  for (const [i, step] of job.steps.entries()) {
    const label = `${jobId}/${step.id ?? step.name ?? step.uses ?? `step ${i + 1}`}`;
    if (failedStep) {
      steps.push({label, hook: 'main', skipped: `an earlier step failed (${failedStep})`});
      continue;
    }
    if (step.if !== undefined) throw new Error(`${label}: "if:" is not supported by the examples suite`);
    // GITHUB_ENV exports win over the workflow's and job's env; the step's own env wins over both.
    ctx.env = {...jobEnv, ...exported};
    const stepEnv = {...ctx.env, ...expandAll(step.env)};
    const env = {...opts.env, ...stepEnv};
    const kind = stepKind(step, label);
    let result: ActionRunResult | undefined;
    if (kind.kind === 'foreign') {
      if (kind.action.startsWith('actions/checkout@')) {
        for (const [file, text] of Object.entries(setup.workspace)) {
          mkdirSync(dirname(join(workspace, file)), {recursive: true});
          writeFileSync(join(workspace, file), text);
        }
        steps.push({label, hook: 'main', skipped: 'checkout: the example fixture files were written instead'});
      } else {
        steps.push({
          label,
          hook: 'main',
          skipped: `${kind.action} is not run here (the fake docker knows only buildx)`
        });
      }
      continue;
    }
    if (kind.kind === 'run') {
      const script = join(workDir, `step-${i + 1}.sh`);
      // The runner's default shell on Linux: bash -e {0}.
      writeFileSync(script, `set -e\n${expand(step.run ?? '', ctx)}\n`);
      result = await runAction({script, node: 'bash', env, workDir, prependPath: paths, timeoutMs});
    } else {
      const manifest = loadActionManifest(kind.action);
      const inputs = actionInputs(manifest.inputs, step, ctx);
      result = await runAction({
        script: inDist(manifest.mainScript),
        inputs,
        env,
        workDir,
        prependPath: paths,
        timeoutMs
      });
      if (manifest.postScript) {
        posts.push({label, script: inDist(manifest.postScript), inputs, state: result.state, stepEnv});
      }
    }
    steps.push({label, hook: 'main', result});
    Object.assign(exported, result.exportedEnv);
    paths.push(...result.path);
    if (step.id) ctx.steps[step.id] = {outputs: result.outputs};
    if (result.failed) failedStep = label;
  }

  for (const post of posts.reverse()) {
    const result = await runAction({
      script: post.script,
      inputs: post.inputs,
      env: {...opts.env, ...jobEnv, ...exported, ...post.stepEnv},
      state: post.state,
      workDir,
      prependPath: paths,
      timeoutMs
    });
    steps.push({label: post.label, hook: 'post', result});
    if (result.failed && !failedStep) failedStep = `${post.label} (post)`;
  }

  const ran = steps.filter((s): s is StepRecord & {result: ActionRunResult} => s.result !== undefined);
  return {
    steps,
    outputs: Object.fromEntries(Object.entries(ctx.steps).map(([id, s]) => [id, s.outputs])),
    warnings: ran.flatMap(s => s.result.annotations.filter(a => a.level === 'warning').map(a => a.message)),
    failedStep,
    log: steps
      .map(s =>
        s.result
          ? `--- ${s.label} ${s.hook} (exit ${s.result.exitCode})\n${s.result.stdout}${s.result.stderr}`
          : `--- ${s.label}: skipped, ${s.skipped}`
      )
      .join('\n')
  };
}

/** action.yml's runs.main/post (under this checkout's dist/) in the dist/ the suites run (kit/actions.ts DIST). */
function inDist(script: string): string {
  return join(DIST, relative(join(ROOT, 'dist'), script));
}

/**
 * The inputs the runner hands an action: every input with a default in action.yml (expanded), then the step's
 * `with:` (YAML scalars as the runner stringifies them: true → "true", 120000 → "120000").
 */
function actionInputs(
  declared: Record<string, {default?: string}>,
  step: WorkflowStep,
  ctx: ExpressionContext
): Record<string, string> {
  const inputs: Record<string, string> = {};
  for (const [name, input] of Object.entries(declared)) {
    if (input.default !== undefined) inputs[name] = expand(String(input.default), ctx);
  }
  for (const [name, value] of Object.entries(step.with ?? {})) inputs[name] = expand(String(value), ctx);
  return inputs;
}
