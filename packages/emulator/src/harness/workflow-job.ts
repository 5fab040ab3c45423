/**
 * Runs one job of a workflow file the way the GitHub runner does: steps in order, each its own process with
 * fresh command files; our actions' main from their action.yml (inputs: the action.yml defaults, then `with:`),
 * `run:` steps with bash (`bash -e`, as the runner's default shell on Linux), `${{ }}` expanded before a step
 * starts, env from the workflow, the job, GITHUB_ENV exports and the step (later wins), GITHUB_PATH carried to
 * later steps, a failed step skipping the rest; then the post steps in reverse order, each with its own main's
 * state, whatever happened (`post-if: always()`). What it does not support it refuses before any step runs,
 * in one line naming the feature (see planJob).
 */
import {mkdir, writeFile} from 'node:fs/promises';
import path from 'node:path';
import {runAction, type ActionRunResult, type OutputStream} from './action-runner.js';
import {knownSecrets} from './known-secrets.js';
import {LogMasker} from './log-masker.js';
import {jobDirs, RUNNER_DEFAULTS} from './runner-env.js';
import {BUILDX_RELEASES_URL_ENV, toolCacheDir} from './tool-cache-dir.js';
import {
  expand,
  loadActionManifest,
  ourAction,
  REPO_ROOT,
  type ActionManifest,
  type ExpressionContext,
  type Workflow,
  type WorkflowJob,
  type WorkflowStep
} from './workflow-file.js';

/** UnsupportedWorkflowError names what a workflow uses that the harness does not run, and what to do. */
export class UnsupportedWorkflowError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsupportedWorkflowError';
  }
}

/** Job keys the harness reads (env, steps) or that change nothing on this machine (runs-on, permissions, …). */
const JOB_KEYS = new Set([
  'name',
  'runs-on',
  'env',
  'steps',
  'permissions',
  'concurrency',
  'timeout-minutes',
  'outputs'
]);
const STEP_KEYS = new Set(['id', 'name', 'uses', 'with', 'env', 'run', 'shell']);
/** Workflow keys besides `jobs` and `env` that change nothing here (triggers, names, permissions). */
const WORKFLOW_KEYS = new Set(['name', 'run-name', 'on', 'permissions', 'concurrency', 'env', 'jobs']);

/** Other actions the harness skips, with the line it prints instead. */
const SKIPPED_ACTIONS: {pattern: RegExp; why: string}[] = [
  {pattern: /^actions\/checkout@/, why: 'checkout is a no-op here: the workspace is the local tree as it is'},
  {
    pattern: /^docker\/login-action@/,
    why: 'registry login is not run by the harness: run `docker login` yourself if the build pushes'
  }
];

/** A step as planned: what runs, or why it is skipped. */
export type PlannedStep =
  | {kind: 'action'; index: number; label: string; step: WorkflowStep; manifest: ActionManifest}
  | {kind: 'run'; index: number; label: string; step: WorkflowStep}
  | {kind: 'skip'; index: number; label: string; step: WorkflowStep; why: string};

/** The job to run: its id and steps, checked. */
export interface JobPlan {
  jobId: string;
  job: WorkflowJob;
  steps: PlannedStep[];
}

/**
 * Picks the job (the only one, or `jobId`) and checks every step, throwing UnsupportedWorkflowError for the first
 * feature the harness does not run: matrix and the other job keys besides JOB_KEYS, `if:` and the other step keys
 * besides STEP_KEYS, a shell other than bash, an action that is not ours (checkout and docker/login-action are
 * skipped instead), an expression other than a property of secrets, vars, env, github or steps.<id>.outputs.
 */
export function planJob(workflow: Workflow, file: string, jobId?: string, root: string = REPO_ROOT): JobPlan {
  const ids = Object.keys(workflow.jobs);
  const id = jobId ?? (ids.length === 1 ? ids[0] : undefined);
  if (id === undefined)
    throw new UnsupportedWorkflowError(`${file} has ${ids.length} jobs (${ids.join(', ')}): pick one with --job`);
  const job = workflow.jobs[id];
  if (!job) throw new UnsupportedWorkflowError(`${file} has no job "${id}" (its jobs: ${ids.join(', ')})`);
  const refuse = (where: string, what: string, fix = ''): never => {
    throw new UnsupportedWorkflowError(
      `${file}${where ? ` ${where}` : ''}: ${what} is not supported by the runner harness${fix ? `: ${fix}` : ''}`
    );
  };
  for (const key of Object.keys(workflow)) if (!WORKFLOW_KEYS.has(key)) refuse('', `top-level "${key}:"`);
  for (const key of Object.keys(job)) {
    if (key === 'strategy') refuse(`job ${id}`, '"strategy:" (matrix)', "write one combination's values into the job");
    if (!JOB_KEYS.has(key)) refuse(`job ${id}`, `"${key}:"`);
  }
  if (!Array.isArray(job.steps) || job.steps.length === 0) refuse(`job ${id}`, 'a job without steps');
  const probe: ExpressionContext = {secrets: {}, vars: {}, env: {}, github: {}, steps: {}};
  const checkExpressions = (where: string, values: unknown[]): void => {
    for (const value of values) {
      try {
        expand(String(value), probe);
      } catch (error) {
        refuse(where, (error as Error).message.replace(/ is not one the runner harness evaluates.*$/, ''));
      }
    }
  };
  checkExpressions('env', Object.values(workflow.env ?? {}));
  checkExpressions(`job ${id} env`, Object.values(job.env ?? {}));

  const steps = job.steps.map((step, index): PlannedStep => {
    const label = step.id ?? step.name ?? step.uses ?? `step ${index + 1}`;
    const named = step.id ?? step.name;
    const where = `job ${id} step ${index + 1}${named !== undefined ? ` (${named})` : ''}`;
    for (const key of Object.keys(step)) if (!STEP_KEYS.has(key)) refuse(where, `"${key}:"`);
    if ((step.run === undefined) === (step.uses === undefined))
      refuse(where, 'a step without exactly one of uses: and run:');
    checkExpressions(where, [...Object.values(step.with ?? {}), ...Object.values(step.env ?? {}), step.run ?? '']);
    if (step.run !== undefined) {
      if (step.shell !== undefined && step.shell !== 'bash')
        refuse(where, `"shell: ${step.shell}"`, 'run: steps run with bash');
      return {kind: 'run', index, label, step};
    }
    const uses = String(step.uses);
    const action = ourAction(uses, `${file} ${where}`, root);
    if (action) return {kind: 'action', index, label, step, manifest: loadActionManifest(action, root)};
    const skipped = SKIPPED_ACTIONS.find(s => s.pattern.test(uses));
    if (skipped) return {kind: 'skip', index, label, step, why: skipped.why};
    return refuse(
      where,
      `"uses: ${uses}"`,
      "it runs this repository's actions and run: steps, and skips actions/checkout and docker/login-action"
    );
  });
  return {jobId: id, job, steps};
}

/** One step of the job as it ran, or why it did not. */
export interface JobStepRecord {
  /** 1-based position in the job's steps. */
  number: number;
  /** The step's id, else its name, else its uses:, else "step N". */
  label: string;
  /** The step's id:, if it has one. */
  id?: string;
  hook: 'main' | 'post';
  /** e.g. "build-push (main)", "run: echo …", "actions/checkout@v4". */
  title: string;
  result?: ActionRunResult;
  skipped?: string;
}

/** What the caller hears while the job runs. */
export type JobEvent =
  | {type: 'start'; step: JobStepRecord}
  | {type: 'line'; step: JobStepRecord; line: string; stream: OutputStream}
  | {type: 'end'; step: JobStepRecord};

export interface WorkflowJobOpts {
  workflow: Workflow;
  /** The workflow's file name, for messages. */
  file: string;
  /** Default: the workflow's only job. */
  jobId?: string;
  /** `${{ secrets.X }}`; all of them are masked from the start. GITHUB_TOKEN defaults to a fake token. */
  secrets?: Record<string, string>;
  /** `${{ vars.X }}` */
  vars?: Record<string, string>;
  /** The runner machine's variables (over PATH and HOME), e.g. a fake docker on PATH; under the workflow's env. */
  env?: Record<string, string>;
  /**
   * What the runner gives action steps (main and post) but not `run:` steps, over everything else: an artifact
   * service's ACTIONS_RESULTS_URL and ACTIONS_RUNTIME_TOKEN (`Emulator.artifacts.runnerEnv()`). The token is masked.
   */
  actionEnv?: Record<string, string>;
  inheritEnv?: boolean;
  /** The job's folder: runner-temp/ and the run: scripts go under it. */
  workDir: string;
  /** GITHUB_WORKSPACE and every step's working directory; default `<workDir>/workspace`. */
  workspace?: string;
  /** The checkout whose actions/ and dist/ run; default this one. */
  root?: string;
  /** Per step; default 600000 (a build may take a while). */
  timeoutMs?: number;
  node?: string;
  /**
   * Where buildx downloads are cached across jobs: each step gets RUNNER_TOOL_CACHE, as on the runner, in a folder of
   * it per REMOTE_BUILDER_BUILDX_RELEASES_URL (toolCacheDir). Default: none (core's own cache, in the home folder).
   */
  toolCacheRoot?: string;
  /** The job's masker; default a new one. The secrets and every secret input or variable are added to it. */
  masker?: LogMasker;
  /** Called for a skipped actions/checkout step (the examples suite writes its fixture files there). */
  onCheckout?: (workspace: string) => void | Promise<void>;
  onEvent?: (event: JobEvent) => void;
  /** Aborting it cancels the running step as a cancelled run does; later steps are skipped, posts still run. */
  cancel?: AbortSignal;
  /** Aborting it kills the running step and every later one at once. */
  kill?: AbortSignal;
}

export interface WorkflowJobResult {
  jobId: string;
  steps: JobStepRecord[];
  /** steps.<id>.outputs after the job. */
  outputs: Record<string, Record<string, string>>;
  /** The first failed step's label ('' when none). */
  failedStep: string;
  workspace: string;
}

/** The GitHub token the runner would give; not a real one (there is no GitHub here). */
export const FAKE_GITHUB_TOKEN = 'ghs_runnerHarnessFakeToken0000000000000';

/** Runs one job of a workflow; see the file comment. Throws UnsupportedWorkflowError before any step runs. */
export async function runWorkflowJob(opts: WorkflowJobOpts): Promise<WorkflowJobResult> {
  const plan = planJob(opts.workflow, opts.file, opts.jobId, opts.root);
  const masker = opts.masker ?? new LogMasker();
  const workspace = path.resolve(opts.workspace ?? jobDirs(opts.workDir).workspace);
  await mkdir(workspace, {recursive: true});
  const secrets = {GITHUB_TOKEN: FAKE_GITHUB_TOKEN, ...opts.secrets};
  for (const value of Object.values(secrets)) masker.addSecret(value);
  for (const value of knownSecrets({env: {...opts.env, ...opts.actionEnv}})) masker.addSecret(value);

  const ctx: ExpressionContext = {
    secrets,
    vars: {...opts.vars},
    env: {},
    github: {
      token: secrets.GITHUB_TOKEN,
      actor: RUNNER_DEFAULTS.GITHUB_ACTOR as string,
      repository: RUNNER_DEFAULTS.GITHUB_REPOSITORY as string,
      repository_owner: RUNNER_DEFAULTS.GITHUB_REPOSITORY_OWNER as string,
      sha: RUNNER_DEFAULTS.GITHUB_SHA as string,
      ref: RUNNER_DEFAULTS.GITHUB_REF as string,
      ref_name: RUNNER_DEFAULTS.GITHUB_REF_NAME as string,
      event_name: RUNNER_DEFAULTS.GITHUB_EVENT_NAME as string,
      run_id: RUNNER_DEFAULTS.GITHUB_RUN_ID as string,
      run_number: RUNNER_DEFAULTS.GITHUB_RUN_NUMBER as string,
      server_url: RUNNER_DEFAULTS.GITHUB_SERVER_URL as string,
      job: plan.jobId,
      workspace
    },
    steps: {}
  };
  /** Expands a map of values; a value that reads a secret is a secret as a whole too. */
  const expandAll = (vars: Record<string, unknown> | undefined): Record<string, string> =>
    Object.fromEntries(
      Object.entries(vars ?? {}).map(([k, v]) => {
        const value = expand(String(v), ctx);
        if (/\$\{\{\s*secrets\./.test(String(v))) masker.addSecret(value);
        return [k, value];
      })
    );
  const jobEnv = {...expandAll(opts.workflow.env), ...expandAll(plan.job.env)};
  const runnerEnv = {GITHUB_JOB: plan.jobId, ...opts.env};
  const exported: Record<string, string> = {};
  const paths: string[] = [];
  const records: JobStepRecord[] = [];
  const posts: {
    record: JobStepRecord;
    script: string;
    inputs: Record<string, string>;
    state: Record<string, string>;
    stepEnv: Record<string, string>;
  }[] = [];
  let failedStep = '';
  const common = {
    workDir: opts.workDir,
    workspace,
    inheritEnv: opts.inheritEnv,
    node: opts.node,
    timeoutMs: opts.timeoutMs ?? 600_000,
    // A cancel escalates as on the runner: SIGINT, SIGTERM after 7.5 s, SIGKILL after 2.5 s more.
    cancelLikeRunner: true,
    kill: opts.kill
  };
  const emit = (event: JobEvent): void => opts.onEvent?.(event);
  const run = async (
    record: JobStepRecord,
    start: () => Promise<ActionRunResult>,
    warnings: string[] = []
  ): Promise<ActionRunResult> => {
    records.push(record);
    emit({type: 'start', step: record});
    for (const warning of warnings) emit({type: 'line', step: record, line: `::warning::${warning}`, stream: 'stdout'});
    record.result = await start();
    emit({type: 'end', step: record});
    return record.result;
  };
  /** The runner's variables, the caller's, then `env`; RUNNER_TOOL_CACHE for the mirror the step names. */
  const stepProcessEnv = (env: Record<string, string>): Record<string, string> => {
    const all: Record<string, string> = {...runnerEnv, ...env};
    if (opts.toolCacheRoot === undefined || all.RUNNER_TOOL_CACHE !== undefined) return all;
    const mirror = all[BUILDX_RELEASES_URL_ENV] ?? (opts.inheritEnv ? process.env[BUILDX_RELEASES_URL_ENV] : undefined);
    return {...all, RUNNER_TOOL_CACHE: toolCacheDir(opts.toolCacheRoot, mirror)};
  };
  const onLine = (record: JobStepRecord) => (line: string, stream: OutputStream) =>
    emit({type: 'line', step: record, line, stream});

  for (const planned of plan.steps) {
    const {step, index, label} = planned;
    const record: JobStepRecord = {
      number: index + 1,
      label,
      id: step.id,
      hook: 'main',
      title: stepTitle(planned)
    };
    const stopped = failedStep
      ? `an earlier step failed (${failedStep})`
      : opts.cancel?.aborted
        ? 'the job was cancelled'
        : '';
    if (stopped || planned.kind === 'skip') {
      record.skipped = stopped || (planned.kind === 'skip' ? planned.why : '');
      if (!stopped && /^actions\/checkout@/.test(String(step.uses))) await opts.onCheckout?.(workspace);
      records.push(record);
      emit({type: 'start', step: record});
      emit({type: 'end', step: record});
      continue;
    }
    ctx.env = {...jobEnv, ...exported};
    const stepEnv = {...ctx.env, ...expandAll(step.env)};
    ctx.env = stepEnv;
    const env = stepProcessEnv(stepEnv);
    for (const value of knownSecrets({env: stepEnv})) masker.addSecret(value);
    let result: ActionRunResult;
    if (planned.kind === 'run') {
      const script = path.join(opts.workDir, 'steps', `step-${index + 1}.sh`);
      await mkdir(path.dirname(script), {recursive: true});
      // The runner's default shell on Linux is `bash -e {0}`; `shell: bash` adds -o pipefail.
      const flags = step.shell === 'bash' ? 'set -eo pipefail' : 'set -e';
      await writeFile(script, `${flags}\n${expand(step.run ?? '', ctx)}\n`);
      result = await run(record, () =>
        runAction({
          ...common,
          script,
          node: 'bash',
          env,
          prependPath: paths,
          cancel: opts.cancel,
          onLine: onLine(record)
        })
      );
    } else if (planned.kind === 'action') {
      const inputs = actionInputs(planned.manifest, step, ctx, expandAll);
      for (const value of knownSecrets({inputs})) masker.addSecret(value);
      result = await run(
        record,
        () =>
          runAction({
            ...common,
            script: planned.manifest.mainScript,
            inputs,
            env: {...env, ...opts.actionEnv},
            prependPath: paths,
            cancel: opts.cancel,
            onLine: onLine(record)
          }),
        unexpectedInputs(planned.manifest, step)
      );
      if (planned.manifest.postScript) {
        const post: JobStepRecord = {
          id: step.id,
          number: record.number,
          label,
          hook: 'post',
          title: `${planned.manifest.name} (post)`
        };
        posts.push({record: post, script: planned.manifest.postScript, inputs, state: result.state, stepEnv});
      }
    } else {
      continue;
    }
    Object.assign(exported, result.exportedEnv);
    paths.push(...result.path);
    if (step.id) ctx.steps[step.id] = {outputs: result.outputs};
    if (result.failed) failedStep = label;
  }

  for (const post of posts.reverse()) {
    const result = await run(post.record, () =>
      runAction({
        ...common,
        script: post.script,
        inputs: post.inputs,
        env: {...stepProcessEnv({...jobEnv, ...exported, ...post.stepEnv}), ...opts.actionEnv},
        state: post.state,
        prependPath: paths,
        onLine: onLine(post.record)
      })
    );
    if (result.failed && !failedStep) failedStep = `${post.record.label} (post)`;
  }
  return {
    jobId: plan.jobId,
    steps: records,
    outputs: Object.fromEntries(Object.entries(ctx.steps).map(([id, s]) => [id, s.outputs])),
    failedStep,
    workspace
  };
}

function stepTitle(planned: PlannedStep): string {
  if (planned.kind === 'action') return `${planned.manifest.name} (main)`;
  if (planned.kind === 'skip') return String(planned.step.uses);
  const first = (planned.step.run ?? '').trim().split('\n')[0] ?? '';
  return planned.step.name ?? `run: ${first.length > 60 ? `${first.slice(0, 57)}...` : first}`;
}

/**
 * The runner's warning for `with:` keys the action does not declare (actions/runner ActionRunner:
 * "Unexpected input(s) 'profile_name', valid inputs are ['api-url', …]"); the step still runs, with them.
 */
export function unexpectedInputs(manifest: ActionManifest, step: WorkflowStep): string[] {
  const valid = Object.keys(manifest.inputs);
  const unexpected = Object.keys(step.with ?? {}).filter(
    name => !valid.some(v => v.toLowerCase() === name.toLowerCase())
  );
  if (unexpected.length === 0) return [];
  return [`Unexpected input(s) '${unexpected.join("', '")}', valid inputs are ['${valid.join("', '")}']`];
}

/**
 * The inputs the runner hands an action: every input with a default in action.yml (expanded), then the step's
 * `with:` (YAML scalars as the runner stringifies them: true → "true", 120000 → "120000").
 */
function actionInputs(
  manifest: ActionManifest,
  step: WorkflowStep,
  ctx: ExpressionContext,
  expandAll: (vars: Record<string, unknown> | undefined) => Record<string, string>
): Record<string, string> {
  const inputs: Record<string, string> = {};
  for (const [name, input] of Object.entries(manifest.inputs)) {
    if (input.default !== undefined) inputs[name] = expand(String(input.default), ctx);
  }
  return {...inputs, ...expandAll(step.with)};
}
