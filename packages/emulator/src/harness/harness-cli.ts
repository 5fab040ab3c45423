/**
 * The harness CLI (cli.ts) as a function: runs one command line with the given environment and streams and
 * resolves with its exit code, so tests call it in-process (see HarnessCliOpts; the steps still run as processes,
 * from this process's PATH and HOME).
 */
import {statSync} from 'node:fs';
import {mkdtemp, rm} from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {closest, parseCommandArgs, UsageError, type OptionSpecs} from '@remote-builder-actions/cli';
import {StepLog} from '../demo/step-log.js';
import {Emulator} from '../emulator.js';
import type {ProfileConfig} from '../profiles.js';
import {runAction, type OutputStream} from './action-runner.js';
import {callerEnvNotice} from './caller-env.js';
import {ACTION_HELP, HARNESS_COMMANDS, JOB_HELP} from './cli-help.js';
import {formatJobReport} from './job-report.js';
import {jobProfiles} from './job-profiles.js';
import {runMainAndPost, type JobStep} from './job-runner.js';
import {knownSecrets} from './known-secrets.js';
import {LogMasker} from './log-masker.js';
import {formatRunReport, status} from './run-report.js';
import {BUILDX_RELEASES_URL_ENV, defaultToolCacheRoot, toolCacheDir} from './tool-cache-dir.js';
import {readWorkflow, REPO_ROOT} from './workflow-file.js';
import {planJob, runWorkflowJob, type JobEvent, type JobStepRecord} from './workflow-job.js';

/** The options both commands take. */
const COMMON_OPTIONS = {
  env: {type: 'string', multiple: true, default: []},
  timeout: {type: 'string'},
  'inherit-env': {type: 'boolean', default: false},
  node: {type: 'string'},
  'work-dir': {type: 'string'},
  help: {type: 'boolean', short: 'h', default: false}
} as const satisfies OptionSpecs;

const ACTION_OPTIONS = {
  ...COMMON_OPTIONS,
  action: {type: 'string'},
  input: {type: 'string', multiple: true, default: []},
  post: {type: 'boolean', default: false}
} as const satisfies OptionSpecs;

const JOB_OPTIONS = {
  ...COMMON_OPTIONS,
  job: {type: 'string'},
  secret: {type: 'string', multiple: true, default: []},
  var: {type: 'string', multiple: true, default: []},
  workspace: {type: 'string'},
  emulator: {type: 'boolean', default: false},
  'fake-docker': {type: 'boolean', default: false},
  debug: {type: 'boolean', default: false}
} as const satisfies OptionSpecs;

/** What one run of the harness CLI reads and writes; every field defaults to this process's. */
export interface HarnessCliOpts {
  /** The arguments after the script (process.argv.slice(2)). */
  argv: string[];
  /** The caller's environment: the caller-env notice, --secret NAME, --inherit-env's mirror, the tool cache root. */
  env?: NodeJS.ProcessEnv;
  /** Where the default and a relative --workspace, and a relative workflow file, resolve. */
  cwd?: string;
  stdout?: {write(text: string): unknown};
  stderr?: {write(text: string): unknown};
  /** Registers the Ctrl-C handler (default: process.on('SIGINT')). */
  onInterrupt?: (handler: () => void) => void;
}

/** Every line this CLI prints goes through it. */
let log = new LogMasker();
let io: Required<HarnessCliOpts>;
const print = (line: string, stream: OutputStream = 'stdout'): void => {
  (stream === 'stderr' ? io.stderr : io.stdout).write(`${log.mask(line)}\n`);
};

/**
 * Runs the harness CLI once and resolves with its exit code (0, 1 a step or the harness failed, 2 a bad command
 * line). One run at a time: a run's secrets are masked until the next run starts.
 */
export async function runHarnessCli(opts: HarnessCliOpts): Promise<number> {
  log = new LogMasker();
  io = {
    env: process.env,
    cwd: process.cwd(),
    stdout: process.stdout,
    stderr: process.stderr,
    onInterrupt: handler => process.on('SIGINT', handler),
    ...opts
  };
  try {
    return await main(opts.argv);
  } catch (error) {
    // The message may quote a value (a bad flag, a step's error): masked like everything else.
    print(`harness: ${error instanceof Error ? error.message : String(error)}`, 'stderr');
    return 1;
  }
}

async function main(argv: string[]): Promise<number> {
  const [first] = argv;
  try {
    if (first === 'job') return await jobCommand(argv.slice(1));
    if (first === 'help') return help(argv[1] === 'job' ? JOB_HELP : ACTION_HELP);
    if (first !== undefined && !first.startsWith('-')) {
      const guess = closest(first, HARNESS_COMMANDS);
      throw new UsageError(`unknown command "${first}"${guess ? `; did you mean ${guess}?` : ''}`);
    }
    return await actionCommand(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    const at = error.command && error.command !== 'harness' ? ` ${error.command}` : '';
    print(`harness: ${error.message}\nRun "npm run harness --${at} --help" for usage.`, 'stderr');
    return 2;
  }
}

function help(text: string): number {
  print(text);
  return 0;
}

/** A usage error of `command` ('' for the default, an action). */
function usage(message: string, command = ''): UsageError {
  return new UsageError(message, command || undefined);
}

/** Ctrl-C once cancels, twice kills, three times exits. */
function interrupts(): {cancel: AbortSignal; kill: AbortSignal} {
  const cancel = new AbortController();
  const kill = new AbortController();
  io.onInterrupt(() => {
    if (!cancel.signal.aborted) {
      console.error('harness: cancelling the step like the runner (Ctrl-C again to kill it now)');
      cancel.abort();
    } else if (!kill.signal.aborted) {
      console.error('harness: killing the job');
      kill.abort();
    } else {
      process.exit(130);
    }
  });
  return {cancel: cancel.signal, kill: kill.signal};
}

function timeoutOf(value: string | undefined, command: string): number | undefined {
  const timeoutMs = value === undefined ? undefined : Number(value);
  if (timeoutMs !== undefined && !(timeoutMs > 0))
    throw usage(`--timeout expects a number of milliseconds above 0, got "${value}"`, command);
  return timeoutMs;
}

async function actionCommand(args: string[]): Promise<number> {
  const parsed = parseCommandArgs(args, ACTION_OPTIONS, 'harness');
  const values = parsed.values as unknown as {[K in 'action' | 'timeout' | 'node' | 'work-dir']?: string} & {
    [K in 'post' | 'inherit-env' | 'help']: boolean;
  } & {[K in 'input' | 'env']: string[]};
  if (values.help) return help(ACTION_HELP);
  if (parsed.positionals.length > 0)
    throw usage(`unexpected argument "${parsed.positionals[0]}": the action is given with --action dist/<action>`);
  if (!values.action) throw usage('missing --action dist/<action> (or the command job <workflow.yml>)');
  const inputs = pairs(values.input, '--input');
  const env = pairs(values.env, '--env');
  const timeoutMs = timeoutOf(values.timeout, '');
  const {cancel, kill} = interrupts();
  env.RUNNER_TOOL_CACHE ??= toolCacheDir(
    defaultToolCacheRoot(io.env),
    env[BUILDX_RELEASES_URL_ENV] ?? inheritedMirror(values)
  );
  print(callerEnvNotice({parent: processEnv(), inherit: values['inherit-env'], given: env}));
  // The api-key input and secret variables are masked from the first line on, as the runner masks secrets.
  for (const secret of knownSecrets({inputs, env: values['inherit-env'] ? {...processEnv(), ...env} : env}))
    log.addSecret(secret);
  const action = values.action;
  const common = {
    inputs,
    env,
    inheritEnv: values['inherit-env'],
    node: values.node,
    workDir: values['work-dir'],
    timeoutMs,
    cancelLikeRunner: true,
    cancel,
    kill
  };
  const script = (hook: string): string => path.join(action, hook, 'index.js');

  if (!values.post) {
    const result = await runAction({...common, script: script('main'), onLine: echo('main')});
    print(`\n${formatRunReport(result, {title: 'main', masker: log})}`);
    return result.failed ? 1 : 0;
  }
  const job = await runMainAndPost({
    ...common,
    main: script('main'),
    post: script('post'),
    onLine: (line, stream, step) => echo(step)(line, stream)
  });
  if (!values['work-dir']) await rm(job.workDir, {recursive: true, force: true});
  print(
    `\n${formatRunReport(job.main, {title: 'main', masker: log})}\n${formatRunReport(job.post, {title: 'post', masker: log})}`
  );
  return job.main.failed || job.post.failed ? 1 : 0;
}

/** Prints output lines as they come, prefixed with the step, masked; `::add-mask::` lines are not printed. */
function echo(step: JobStep | string, prefix = `[${step}] `): (line: string, stream: OutputStream) => void {
  return (line, stream) => {
    const shown = log.line(line);
    if (shown !== undefined) print(`${prefix}${shown}`, stream);
  };
}

async function jobCommand(args: string[]): Promise<number> {
  const {values: parsed, positionals} = parseCommandArgs(args, JOB_OPTIONS, 'job');
  const values = parsed as unknown as {[K in 'job' | 'workspace' | 'timeout' | 'node' | 'work-dir']?: string} & {
    [K in 'emulator' | 'fake-docker' | 'debug' | 'inherit-env' | 'help']: boolean;
  } & {[K in 'secret' | 'var' | 'env']: string[]};
  if (values.help) return help(JOB_HELP);
  if (positionals.length === 0) throw usage('missing the workflow file: job <workflow.yml>', 'job');
  if (positionals.length > 1)
    throw usage(`one workflow file at a time, got ${positionals.map(p => `"${p}"`).join(' ')}`, 'job');
  const file = positionals[0] as string;
  const workspace = path.resolve(io.cwd, values.workspace ?? '.');
  if (!isDirectory(workspace))
    throw usage(
      `the workspace ${workspace} is not a folder: name the checked-out repository with --workspace ` +
        '(e.g. --workspace examples/app, which holds the Dockerfile and docker-bake.hcl the examples build)',
      'job'
    );
  const secrets = secretPairs(values.secret);
  for (const value of Object.values(secrets)) log.addSecret(value);
  const vars = pairs(values.var, '--var');
  const env = pairs(values.env, '--env');
  const timeoutMs = timeoutOf(values.timeout, 'job');
  for (const secret of knownSecrets({env: values['inherit-env'] ? {...processEnv(), ...env} : env}))
    log.addSecret(secret);
  const workflow = readWorkflow(path.resolve(io.cwd, file));
  // Refuses what the harness does not run before anything starts (and before an emulator is started).
  const plan = planJob(workflow, file, values.job);
  const profiles = jobProfiles(plan.steps);
  const workDir = values['work-dir'] ?? (await mkdtemp(path.join(os.tmpdir(), 'rba-harness-job-')));
  const fakeDocker = values['fake-docker'] || values.emulator;
  if (fakeDocker) {
    env.PATH = `${path.join(REPO_ROOT, 'packages', 'emulator', 'fake-docker')}${path.delimiter}${env.PATH ?? io.env.PATH ?? ''}`;
    env.FAKE_DOCKER_DIR ??= path.join(workDir, 'fake-docker');
    // The fake keeps its builders where buildx does, under DOCKER_CONFIG: the job's own, not ~/.docker.
    env.DOCKER_CONFIG ??= path.join(workDir, 'docker-config');
  }
  const runJob = async (emu: Emulator | undefined): Promise<number> => {
    if (emu) {
      vars.REMOTE_BUILDER_API_URL ??= emu.url;
      secrets.REMOTE_BUILDER_API_KEY ??= EMULATOR_KEY;
    }
    const {cancel, kill} = interrupts();
    print(`Job ${plan.jobId} of ${file}: ${plan.steps.length} steps; workspace (GITHUB_WORKSPACE) ${workspace}`);
    print(callerEnvNotice({parent: processEnv(), inherit: values['inherit-env'], given: env}));
    // The repository's root is no app: an example run from there finds no Dockerfile or bake file.
    if (
      values.workspace === undefined &&
      workspace === REPO_ROOT &&
      path.resolve(io.cwd, file).startsWith(EXAMPLES_DIR)
    )
      print(
        'The workspace is this repository, which has no app to build: the examples build examples/app (--workspace examples/app).'
      );
    if (emu) {
      print(`Emulator at ${emu.url}, serving:`);
      for (const note of profiles.notes) print(note);
    }
    if (fakeDocker)
      print('docker and buildx are the recording fake docker (packages/emulator/fake-docker): builds are SIMULATED.');
    const job = await runWorkflowJob({
      workflow,
      file,
      jobId: plan.jobId,
      secrets,
      vars,
      env,
      actionEnv: emu?.artifacts.runnerEnv(),
      inheritEnv: values['inherit-env'],
      workDir,
      workspace,
      timeoutMs,
      node: values.node,
      toolCacheRoot: defaultToolCacheRoot(io.env),
      masker: log,
      cancel,
      kill,
      onEvent: jobPrinter(values.debug)
    });
    for (const line of formatJobReport(job, {masker: log, simulated: fakeDocker})) print(line);
    if (emu) {
      const left = emu.assignedBuilders();
      print(
        `Emulator ledger: ${emu.ledger().length} builder(s) assigned, ` +
          (left.length === 0
            ? 'all torn down.'
            : `${left.length} NOT torn down: ${left.map(e => e.builderId).join(', ')}.`)
      );
      const artifacts = emu.artifacts
        .artifacts()
        .map(a => `${a.name} (${a.bytes?.length ?? 0} bytes${a.finalized ? '' : ', NOT finalized'})`);
      print(
        `Emulator artifact service: ${artifacts.length} artifact(s)${artifacts.length ? `: ${artifacts.join(', ')}` : ''}.`
      );
    }
    return job.failedStep ? 1 : 0;
  };
  let emu: Emulator | undefined;
  try {
    emu = values.emulator ? await startEmulator(profiles.profiles) : undefined;
    return await runJob(emu);
  } finally {
    await emu?.close();
    if (!values['work-dir']) await rm(workDir, {recursive: true, force: true});
  }
}

/**
 * Prints a job's steps as the runner's log shows them (the demo's StepLog: groups, annotations, `::debug::` only
 * with --debug), every line masked first by the job's LogMasker, which also drops `::add-mask::` lines.
 */
function jobPrinter(debug: boolean): (event: JobEvent) => void {
  const logs = new Map<JobStepRecord, StepLog>();
  return event => {
    const {step} = event;
    const name = `${step.hook === 'post' ? 'Post step' : 'Step'} ${step.number}${step.id ? ` (${step.id})` : ''}: ${step.title}`;
    if (event.type === 'start') {
      print(step.skipped !== undefined ? `── ${name}: skipped, ${step.skipped}` : `── ${name} ──`);
      logs.set(step, new StepLog({out: line => print(line), prefix: '  ', debug}));
    } else if (event.type === 'line') {
      const shown = log.line(event.line);
      if (shown !== undefined) logs.get(step)?.line(shown);
    } else if (step.result) {
      print(`  ${step.result.failed ? '✗' : '✓'} ${status(step.result)}`);
      for (const error of step.result.fileCommandErrors) print(`  ${error}`);
    }
  };
}

const EMULATOR_KEY = 'harness-emulator-key';

/** The example workflows, and the app they build (examples/app). */
const EXAMPLES_DIR = path.join(REPO_ROOT, 'examples') + path.sep;

/** An emulator serving the profiles the job's steps name (jobProfiles), with the harness's API key. */
function startEmulator(profiles: ProfileConfig[]): Promise<Emulator> {
  return Emulator.start({
    profiles,
    apiKeys: [{key: EMULATOR_KEY, scopes: ['builders']}],
    log: () => {}
  });
}

function processEnv(): Record<string, string> {
  return Object.fromEntries(Object.entries(io.env).filter((e): e is [string, string] => e[1] !== undefined));
}

function isDirectory(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/** The mirror of this shell's environment, when it is passed on (--inherit-env). */
function inheritedMirror(values: {'inherit-env': boolean}): string | undefined {
  return values['inherit-env'] ? io.env[BUILDX_RELEASES_URL_ENV] : undefined;
}

function pairs(items: string[], flag: string): Record<string, string> {
  const result: Record<string, string> = {};
  for (const item of items) {
    const equals = item.indexOf('=');
    if (equals <= 0) throw new UsageError(`${flag} expects NAME=value, got "${item}"`);
    result[item.slice(0, equals)] = item.slice(equals + 1);
  }
  return result;
}

/** `--secret NAME=value`, or `--secret NAME` to take the value from the variable NAME (kept out of ps and history). */
function secretPairs(items: string[]): Record<string, string> {
  const result: Record<string, string> = {};
  for (const item of items) {
    const equals = item.indexOf('=');
    if (equals === 0) throw new UsageError(`--secret expects NAME=value or NAME, got "=…"`, 'job');
    const name = equals < 0 ? item : item.slice(0, equals);
    const value = equals < 0 ? io.env[name] : item.slice(equals + 1);
    if (value === undefined)
      throw new Error(`--secret ${name}: the variable ${name} is not set; set it or pass --secret ${name}=value`);
    result[name] = value;
  }
  return result;
}
