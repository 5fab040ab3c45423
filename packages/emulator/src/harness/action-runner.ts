/**
 * Why not @github/local-action: it imports the entrypoint in its own process, requires it to export `run()`,
 * and swaps `@actions/core` (1.x API) for stubs with quibble. Its README says it "supports non-transpiled action
 * code only", so an ncc bundle with core inlined is out of reach. Its `--pre`/`--post` options run in the same
 * process: nothing carries GITHUB_STATE into STATE_*, and no signal is sent. Hence this harness, which starts
 * `node dist/<action>/<hook>/index.js` as its own process, the way the runner does.
 */
import {spawn} from 'node:child_process';
import {mkdir, mkdtemp, rm} from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {CommandFiles} from './command-files.js';
import {LineSplitter} from './line-splitter.js';
import {buildStepEnv, jobDirs} from './runner-env.js';
import {SignalScheduler, type CancelTimings, type SentSignal, type SignalSpec} from './signal-scheduler.js';
import {parseWorkflowCommands, type Annotation} from './workflow-command-parser.js';

export type OutputStream = 'stdout' | 'stderr';

export interface ActionRunOpts {
  /** Path to `dist/<action>/<hook>/index.js`; relative paths resolve against the caller's cwd. */
  script: string;
  /** → `INPUT_<NAME>` (spaces → '_', upper case, dashes kept: `INPUT_PROFILE-NAME`). */
  inputs?: Record<string, string>;
  /** Extra variables over a clean base (PATH, HOME) and the runner's variables, which they override. */
  env?: Record<string, string>;
  /** Start from the caller's whole process.env instead of PATH and HOME. */
  inheritEnv?: boolean;
  /** → `STATE_<name>`; a post step gets its main step's GITHUB_STATE this way. */
  state?: Record<string, string>;
  /** GITHUB_PATH lines of earlier steps, oldest first; prepended to PATH as the runner does. */
  prependPath?: string[];
  /** The job's directory: RUNNER_TEMP is `runner-temp/`, GITHUB_WORKSPACE (and cwd) `workspace/`. Default: a new temp dir. */
  workDir?: string;
  /** GITHUB_WORKSPACE (and cwd) elsewhere than `<workDir>/workspace`, e.g. a local checkout. Never removed. */
  workspace?: string;
  /** Remove a work dir the harness created once the step ends (default). A given workDir is never removed. */
  keepWorkDir?: boolean;
  /** SIGKILL the process tree after this long (reported as timedOut). Default 120000. */
  timeoutMs?: number;
  /** Signals to send at a time or when a stdout/stderr line matches. */
  signals?: SignalSpec[];
  /** When a SIGINT is sent, follow the runner: SIGTERM, then SIGKILL of the tree, if still alive. */
  cancelLikeRunner?: boolean;
  /** Overrides the runner's 7500 ms / 2500 ms escalation delays (for quick tests). */
  cancelTimings?: CancelTimings;
  /** Aborting it cancels the step like a cancelled run: a SIGINT (escalating with cancelLikeRunner). */
  cancel?: AbortSignal;
  /** Aborting it SIGKILLs the process tree at once. */
  kill?: AbortSignal;
  /** The node binary; default the current one (process.execPath). */
  node?: string;
  /** Called with every complete output line as it arrives. */
  onLine?: (line: string, stream: OutputStream) => void;
}

export interface ActionRunResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** The harness killed the process because timeoutMs passed. */
  timedOut: boolean;
  durationMs: number;
  stdout: string;
  stderr: string;
  /** Parsed from GITHUB_OUTPUT (`name=value` and `name<<DELIMITER` forms) over `set-output` from the log. */
  outputs: Record<string, string>;
  /** Parsed from GITHUB_STATE over `save-state` from the log (the runner still honours both, the file last). */
  state: Record<string, string>;
  /** Parsed from GITHUB_ENV. */
  exportedEnv: Record<string, string>;
  /** GITHUB_PATH lines, in the order added. */
  path: string[];
  /** GITHUB_STEP_SUMMARY content. */
  summary: string;
  /** `::error::`, `::warning::`, `::notice::` and `::debug::` commands, stdout's first, then stderr's (the runner reads both). */
  annotations: Annotation[];
  /** Values registered via `::add-mask::`. */
  masks: string[];
  /** Malformed command files; the runner fails the step for each. */
  fileCommandErrors: string[];
  /** The step failed, as the runner judges it: a non-zero exit, death by signal, or a malformed command file. */
  failed: boolean;
  /** Signals the harness sent, with when and why. */
  signalsSent: SentSignal[];
  /** The command files' exact text, for secret scanning. */
  rawFiles: {output: string; state: string; env: string; path: string; summary: string};
}

/** ActionRunner runs one hook (main or post) of a bundled JavaScript action as a child process. */
export class ActionRunner {
  constructor(private readonly opts: ActionRunOpts) {}

  async run(): Promise<ActionRunResult> {
    const created = this.opts.workDir === undefined;
    const workDir = this.opts.workDir ?? (await mkdtemp(path.join(os.tmpdir(), 'rba-harness-')));
    try {
      return await this.runIn(workDir);
    } finally {
      if (created && !this.opts.keepWorkDir) await rm(workDir, {recursive: true, force: true});
    }
  }

  private async runIn(workDir: string): Promise<ActionRunResult> {
    const dirs = {...jobDirs(workDir), ...(this.opts.workspace ? {workspace: path.resolve(this.opts.workspace)} : {})};
    await Promise.all([mkdir(dirs.runnerTemp, {recursive: true}), mkdir(dirs.workspace, {recursive: true})]);
    const files = new CommandFiles({runnerTemp: dirs.runnerTemp});
    await files.create();
    const env = buildStepEnv({
      dirs,
      commandFiles: files.env(),
      inputs: this.opts.inputs,
      env: this.opts.env,
      inheritEnv: this.opts.inheritEnv,
      state: this.opts.state,
      prependPath: this.opts.prependPath
    });

    const node = this.opts.node ?? process.execPath;
    const started = performance.now();
    // Its own process group, so that a tree kill reaches whatever the action started.
    const child = spawn(node, [path.resolve(this.opts.script)], {
      cwd: dirs.workspace,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true
    });
    const alive = (): boolean => child.exitCode === null && child.signalCode === null;
    const scheduler = new SignalScheduler({
      target: {
        // No pid: the spawn failed, and Node 20's kill() would signal an uninitialized pid (maybe 0 or -1).
        signal: signal => ignoreGone(() => child.pid !== undefined && child.kill(signal)),
        killTree: () => ignoreGone(() => child.pid !== undefined && process.kill(-child.pid, 'SIGKILL')),
        alive
      },
      signals: this.opts.signals,
      cancelLikeRunner: this.opts.cancelLikeRunner,
      cancelTimings: this.opts.cancelTimings,
      timeoutMs: this.opts.timeoutMs ?? 120_000,
      elapsedMs: () => Math.round(performance.now() - started)
    });

    const output = {stdout: new StreamCapture(), stderr: new StreamCapture()};
    const onLine = (line: string, stream: OutputStream): void => {
      scheduler.onLine(line);
      this.opts.onLine?.(line, stream);
    };
    for (const stream of ['stdout', 'stderr'] as const) {
      child[stream].on('data', (chunk: Buffer) => {
        for (const line of output[stream].push(chunk)) onLine(line, stream);
      });
    }
    const onCancel = (): void => scheduler.cancel();
    const onKill = (): void => scheduler.forceKill();

    let exit: {code: number | null; signal: NodeJS.Signals | null};
    try {
      exit = await new Promise((resolve, reject) => {
        child.once('error', error => reject(new Error(`Failed to start ${node}: ${error.message}`)));
        child.once('spawn', () => {
          scheduler.start();
          if (this.opts.cancel?.aborted) onCancel();
          else this.opts.cancel?.addEventListener('abort', onCancel, {once: true});
          if (this.opts.kill?.aborted) onKill();
          else this.opts.kill?.addEventListener('abort', onKill, {once: true});
        });
        child.once('close', (code, signal) => resolve({code, signal}));
      });
    } finally {
      scheduler.stop();
      this.opts.cancel?.removeEventListener('abort', onCancel);
      this.opts.kill?.removeEventListener('abort', onKill);
    }
    const durationMs = Math.round(performance.now() - started);
    for (const stream of ['stdout', 'stderr'] as const) {
      for (const line of output[stream].end()) onLine(line, stream);
    }

    const contents = await files.read();
    const commands = parseWorkflowCommands([...output.stdout.lines, ...output.stderr.lines]);
    return {
      exitCode: exit.code,
      signal: exit.signal,
      timedOut: scheduler.timedOut,
      durationMs,
      stdout: output.stdout.text(),
      stderr: output.stderr.text(),
      outputs: {...commands.outputs, ...contents.outputs},
      state: {...commands.state, ...contents.state},
      exportedEnv: contents.exportedEnv,
      path: contents.path,
      summary: contents.summary,
      annotations: commands.annotations,
      masks: commands.masks,
      fileCommandErrors: contents.errors,
      failed: exit.code !== 0 || contents.errors.length > 0,
      signalsSent: scheduler.sent,
      rawFiles: contents.raw
    };
  }
}

/** Runs one hook of a bundled action as the runner would; see ActionRunOpts. */
export function runAction(opts: ActionRunOpts): Promise<ActionRunResult> {
  return new ActionRunner(opts).run();
}

/** The bytes and lines of one output stream. */
class StreamCapture {
  readonly lines: string[] = [];
  private readonly chunks: Buffer[] = [];
  private readonly splitter = new LineSplitter();

  push(chunk: Buffer): string[] {
    this.chunks.push(chunk);
    return this.keep(this.splitter.push(chunk));
  }

  end(): string[] {
    return this.keep(this.splitter.end());
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }

  private keep(lines: string[]): string[] {
    this.lines.push(...lines);
    return lines;
  }
}

/** Signalling a process that already exited (ESRCH) is not an error here. */
function ignoreGone(fn: () => unknown): void {
  try {
    fn();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}
