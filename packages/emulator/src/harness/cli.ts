/**
 * Runs a bundled action's main step (and with --post its post step) like the runner, then prints a report;
 * or, with `job`, one job of a workflow file (an example as it is), then its job summary as text.
 *
 *   npx tsx packages/emulator/src/harness/cli.ts --action dist/configure \
 *     --input profile-name=x --input timeout=1000 [--env K=V] [--post] [--timeout MS] [--inherit-env] [--node PATH]
 *   npx tsx packages/emulator/src/harness/cli.ts job examples/build-push.yml [--job image] \
 *     [--secret NAME[=VALUE]]... [--var NAME=VALUE]... [--env K=V]... [--workspace DIR] [--emulator] [--fake-docker]
 *
 * Ctrl-C cancels the running step as a cancelled run would (SIGINT, SIGTERM after 7.5 s, SIGKILL after 2.5 s
 * more); post still runs, as with `post-if: always()`. A second Ctrl-C kills the job at once, post included, as
 * the server does when a cancelled job overruns its 5 minutes.
 *
 * Nothing secret is printed: the `api-key` input, every `secrets.*` and every `::add-mask::` value (and each
 * line of it) is shown as `***` in every encoding LogMasker knows; `::add-mask::` lines are not shown.
 */
import {mkdtemp, rm} from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {parseArgs} from 'node:util';
import {StepLog} from '../demo/step-log.js';
import {Emulator} from '../emulator.js';
import {runAction, type OutputStream} from './action-runner.js';
import {formatJobReport} from './job-report.js';
import {runMainAndPost, type JobStep} from './job-runner.js';
import {knownSecrets} from './known-secrets.js';
import {LogMasker} from './log-masker.js';
import {formatRunReport, status} from './run-report.js';
import {readWorkflow, REPO_ROOT} from './workflow-file.js';
import {planJob, runWorkflowJob, type JobEvent, type JobStepRecord} from './workflow-job.js';

const USAGE = [
  'usage: cli.ts --action dist/<action> [--input name=value]... [--env NAME=value]... [--post] ' +
    '[--timeout ms] [--inherit-env] [--node path] [--work-dir dir]',
  '       cli.ts job <workflow.yml> [--job id] [--secret NAME[=value]]... [--var NAME=value]... ' +
    '[--env NAME=value]... [--workspace dir] [--emulator] [--fake-docker] [--debug] [--timeout ms] [--inherit-env] ' +
    '[--node path] [--work-dir dir]'
].join('\n');

/** Every line this CLI prints goes through it. */
const log = new LogMasker();
const print = (line: string, stream: OutputStream = 'stdout'): void => {
  (stream === 'stderr' ? process.stderr : process.stdout).write(`${log.mask(line)}\n`);
};

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  if (argv[0] === 'job') return jobCommand(argv.slice(1));
  return actionCommand(argv);
}

/** Ctrl-C once cancels, twice kills, three times exits. */
function interrupts(): {cancel: AbortSignal; kill: AbortSignal} {
  const cancel = new AbortController();
  const kill = new AbortController();
  process.on('SIGINT', () => {
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

function timeoutOf(value: string | undefined): number | undefined {
  const timeoutMs = value === undefined ? undefined : Number(value);
  if (timeoutMs !== undefined && !(timeoutMs > 0)) throw new Error(`--timeout expects milliseconds, got '${value}'`);
  return timeoutMs;
}

async function actionCommand(args: string[]): Promise<number> {
  const {values} = parseArgs({
    args,
    options: {
      action: {type: 'string'},
      input: {type: 'string', multiple: true, default: []},
      env: {type: 'string', multiple: true, default: []},
      post: {type: 'boolean', default: false},
      timeout: {type: 'string'},
      'inherit-env': {type: 'boolean', default: false},
      node: {type: 'string'},
      'work-dir': {type: 'string'},
      help: {type: 'boolean', short: 'h', default: false}
    }
  });
  if (values.help || !values.action) {
    console.error(USAGE);
    return values.help ? 0 : 2;
  }
  const {cancel, kill} = interrupts();
  const inputs = pairs(values.input, '--input');
  const env = pairs(values.env, '--env');
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
    timeoutMs: timeoutOf(values.timeout),
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
  const {values, positionals} = parseArgs({
    args,
    allowPositionals: true,
    options: {
      job: {type: 'string'},
      secret: {type: 'string', multiple: true, default: []},
      var: {type: 'string', multiple: true, default: []},
      env: {type: 'string', multiple: true, default: []},
      workspace: {type: 'string'},
      emulator: {type: 'boolean', default: false},
      'fake-docker': {type: 'boolean', default: false},
      debug: {type: 'boolean', default: false},
      timeout: {type: 'string'},
      'inherit-env': {type: 'boolean', default: false},
      node: {type: 'string'},
      'work-dir': {type: 'string'},
      help: {type: 'boolean', short: 'h', default: false}
    }
  });
  if (values.help || positionals.length !== 1) {
    console.error(USAGE);
    return values.help ? 0 : 2;
  }
  const file = positionals[0] as string;
  const secrets = secretPairs(values.secret);
  for (const value of Object.values(secrets)) log.addSecret(value);
  const vars = pairs(values.var, '--var');
  const env = pairs(values.env, '--env');
  for (const secret of knownSecrets({env: values['inherit-env'] ? {...processEnv(), ...env} : env}))
    log.addSecret(secret);
  const workflow = readWorkflow(file);
  // Refuses what the harness does not run before anything starts (and before an emulator is started).
  const plan = planJob(workflow, file, values.job);
  const timeoutMs = timeoutOf(values.timeout);
  const workDir = values['work-dir'] ?? (await mkdtemp(path.join(os.tmpdir(), 'rba-harness-job-')));
  const fakeDocker = values['fake-docker'] || values.emulator;
  if (fakeDocker) {
    env.PATH = `${path.join(REPO_ROOT, 'packages', 'emulator', 'fake-docker')}${path.delimiter}${env.PATH ?? process.env.PATH ?? ''}`;
    env.FAKE_DOCKER_DIR ??= path.join(workDir, 'fake-docker');
  }
  const runJob = async (emu: Emulator | undefined): Promise<number> => {
    if (emu) {
      vars.REMOTE_BUILDER_API_URL ??= emu.url;
      secrets.REMOTE_BUILDER_API_KEY ??= EMULATOR_KEY;
    }
    const {cancel, kill} = interrupts();
    const workspace = path.resolve(values.workspace ?? process.cwd());
    print(`Job ${plan.jobId} of ${file}: ${plan.steps.length} steps; workspace (GITHUB_WORKSPACE) ${workspace}`);
    if (emu)
      print(
        `Emulator at ${emu.url} (profiles: ${emu
          .profiles()
          .map(p => p.name)
          .join(', ')})`
      );
    if (fakeDocker)
      print('docker and buildx are the recording fake docker (packages/emulator/fake-docker): builds are SIMULATED.');
    const job = await runWorkflowJob({
      workflow,
      file,
      jobId: plan.jobId,
      secrets,
      vars,
      env,
      inheritEnv: values['inherit-env'],
      workDir,
      workspace,
      timeoutMs,
      node: values.node,
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
    }
    return job.failedStep ? 1 : 0;
  };
  let emu: Emulator | undefined;
  try {
    emu = values.emulator ? await startEmulator(plan.steps.map(s => s.step.with?.['profile-name'])) : undefined;
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

/** An emulator with a profile for each profile-name the job names: amd64 + arm64, 2 builders each, ready after 1 s. */
function startEmulator(named: unknown[]): Promise<Emulator> {
  const names = new Set(
    named
      .filter((n): n is string => typeof n === 'string')
      .flatMap(n => n.split(','))
      .map(n => n.trim())
      .filter(n => n !== '' && !n.includes('${{'))
  );
  if (names.size === 0) names.add('default');
  return Emulator.start({
    profiles: [...names].map(name => ({
      name,
      architectures: ['amd64', 'arm64'],
      buildersPerAssignment: 2,
      readyDelayMs: 1000
    })),
    apiKeys: [{key: EMULATOR_KEY, scopes: ['builders']}],
    log: () => {}
  });
}

function processEnv(): Record<string, string> {
  return Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
}

function pairs(items: string[], flag: string): Record<string, string> {
  const result: Record<string, string> = {};
  for (const item of items) {
    const equals = item.indexOf('=');
    if (equals <= 0) throw new Error(`${flag} expects name=value, got '${item}'`);
    result[item.slice(0, equals)] = item.slice(equals + 1);
  }
  return result;
}

/** `--secret NAME=value`, or `--secret NAME` to take the value from the variable NAME (kept out of ps and history). */
function secretPairs(items: string[]): Record<string, string> {
  const result: Record<string, string> = {};
  for (const item of items) {
    const equals = item.indexOf('=');
    if (equals === 0) throw new Error(`--secret expects NAME=value or NAME, got '=…'`);
    const name = equals < 0 ? item : item.slice(0, equals);
    const value = equals < 0 ? process.env[name] : item.slice(equals + 1);
    if (value === undefined)
      throw new Error(`--secret ${name}: the variable ${name} is not set; set it or pass --secret ${name}=value`);
    result[name] = value;
  }
  return result;
}

main().then(
  code => process.exit(code),
  (error: unknown) => {
    // The message may quote a value (a bad flag, a step's error): masked like everything else.
    print(`harness: ${error instanceof Error ? error.message : String(error)}`, 'stderr');
    process.exit(1);
  }
);
