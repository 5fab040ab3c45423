/**
 * Runs a bundled action's main step (and with --post its post step) like the runner, then prints a report.
 *
 *   npx tsx packages/emulator/src/harness/cli.ts --action dist/configure \
 *     --input profile-name=x --input timeout=1000 [--env K=V] [--post] [--timeout MS] [--inherit-env] [--node PATH]
 *
 * Ctrl-C cancels main as a cancelled run would (SIGINT, SIGTERM after 7.5 s, SIGKILL after 2.5 s more); post still
 * runs, as with `post-if: always()`. A second Ctrl-C kills the job at once, post included, as the server does
 * when a cancelled job overruns its 5 minutes.
 */
import {rm} from 'node:fs/promises';
import path from 'node:path';
import {parseArgs} from 'node:util';
import {runAction, type OutputStream} from './action-runner.js';
import {runMainAndPost, type JobStep} from './job-runner.js';
import {formatRunReport} from './run-report.js';
import {parseWorkflowCommand} from './workflow-command-parser.js';

const USAGE =
  'usage: cli.ts --action dist/<action> [--input name=value]... [--env NAME=value]... [--post] ' +
  '[--timeout ms] [--inherit-env] [--node path] [--work-dir dir]';

async function main(): Promise<number> {
  const {values} = parseArgs({
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
  const timeoutMs = values.timeout === undefined ? undefined : Number(values.timeout);
  if (timeoutMs !== undefined && !(timeoutMs > 0))
    throw new Error(`--timeout expects milliseconds, got '${values.timeout}'`);
  const action = values.action;

  const common = {
    inputs: pairs(values.input, '--input'),
    env: pairs(values.env, '--env'),
    inheritEnv: values['inherit-env'],
    node: values.node,
    workDir: values['work-dir'],
    timeoutMs,
    cancelLikeRunner: true,
    cancel: cancel.signal,
    kill: kill.signal
  };
  const script = (hook: string): string => path.join(action, hook, 'index.js');

  if (!values.post) {
    const echoLine = echo();
    const result = await runAction({
      ...common,
      script: script('main'),
      onLine: (line, stream) => echoLine(line, stream, 'main')
    });
    console.log(`\n${formatRunReport(result, {title: 'main'})}`);
    return result.failed ? 1 : 0;
  }

  const job = await runMainAndPost({...common, main: script('main'), post: script('post'), onLine: echo()});
  if (!values['work-dir']) await rm(job.workDir, {recursive: true, force: true});
  console.log(`\n${formatRunReport(job.main, {title: 'main'})}\n${formatRunReport(job.post, {title: 'post'})}`);
  return job.main.failed || job.post.failed ? 1 : 0;
}

/** Prints output lines as they come, prefixed with the step, masking values registered so far, as the runner does. */
function echo(): (line: string, stream: OutputStream, step: JobStep) => void {
  const masks: string[] = [];
  return (line, stream, step) => {
    const command = parseWorkflowCommand(line);
    if (command?.name === 'add-mask' && command.data.trim() !== '') {
      masks.push(command.data);
      masks.sort((a, b) => b.length - a.length);
    }
    const shown = masks.reduce((acc, secret) => acc.split(secret).join('***'), line);
    (stream === 'stderr' ? process.stderr : process.stdout).write(`[${step}] ${shown}\n`);
  };
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

main().then(
  code => process.exit(code),
  (error: unknown) => {
    console.error(`harness: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
);
