import {spawn} from 'node:child_process';
import {constants} from 'node:os';
import {childEnv} from './child-env.js';
import {systemClock, type Clock, type Deadline} from './clock.js';
import type {Logger} from './logger.js';

/**
 * How long a stopped command's process group has between SIGTERM and SIGKILL. The runner cancels a step
 * with SIGINT to the step's node process, SIGTERM 7.5 s later and a kill 2.5 s after that (actions/runner
 * src/Runner.Sdk/ProcessInvoker.cs: `_sigintTimeout` 7500 ms, `_sigtermTimeout` 2500 ms,
 * CancelAndKillProcessTree). After the SIGINT, main must stop docker and then tear the builders down
 * (CANCEL_TEARDOWN_MS, 5 s, in docker/remote-build.ts): 2 s + PIPE_DRAIN_MS + 5 s ≈ 7.2 s ends before the
 * runner's SIGTERM, and leaves ~2.8 s of slack before its kill for a loaded machine. docker and buildx
 * stop a build on SIGTERM as on SIGINT (moby/buildkit util/appcontext: the first termination signal
 * cancels the command's context), so SIGKILL only ever hits a process that ignored that. SIGTERM rather
 * than SIGINT: programs that treat SIGINT as an interactive Ctrl-C still stop, and callers keep exit 143.
 * (A hung `buildx rm` in that teardown is itself stopped this way: rm's 5 s limit + KILL_GRACE_MS.)
 */
export const KILL_GRACE_MS = 2000;

/**
 * After the command itself exits, how long its output may still arrive before the pipes are closed. A
 * process it started (buildx is a child of the docker CLI) can hold the pipes open: never wait for it.
 */
export const PIPE_DRAIN_MS = 150;

/** While stopping, how often to check whether anything is left in the command's process group. */
const GROUP_POLL_MS = 50;

/** Process groups are a POSIX notion; on Windows only the command itself is signalled. */
const GROUPS = process.platform !== 'win32';

export interface ExecOpts {
  /** Extra environment, merged over process.env; the API key variables are left out of both (child-env.ts). */
  env?: Record<string, string>;
  /** Stop the command and everything it started (SIGTERM, SIGKILL KILL_GRACE_MS later) after this many ms. */
  timeoutMs?: number;
  /** Stop the command and everything it started (as for timeoutMs) when this aborts. */
  signal?: AbortSignal;
  /** Do not echo output lines to the logger (echoed lines go to Logger.untrusted). */
  silent?: boolean;
  /** The caller already printed the command line (e.g. as `[command]…`): do not log it again at debug. */
  logged?: boolean;
  cwd?: string;
}

export interface ExecResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** Set when the command was killed because of timeoutMs or the signal. */
  killed?: 'timeout' | 'aborted';
  /** Set when the command could not be started at all (exit code 127): the spawn error's code, e.g. ENOENT. */
  spawnError?: string;
}

/** Exec is the one seam through which core runs programs (docker buildx); tests inject a fake. */
export interface Exec {
  run(command: string, args: string[], opts?: ExecOpts): Promise<ExecResult>;
}

export interface NodeExecOpts {
  logger?: Logger;
  /** Between SIGTERM and SIGKILL of a stopped command's group; default KILL_GRACE_MS. */
  killGraceMs?: number;
  /** How long output may still arrive after the command exits; default PIPE_DRAIN_MS. */
  pipeDrainMs?: number;
  /** What measures the time limit, the kill grace and the pipe drain (default the system clock). */
  clock?: Clock;
}

/**
 * NodeExec runs programs with child_process.spawn: argv only, never a shell. It exists instead of
 * @actions/exec because we need time limits and cancellation, which @actions/exec does not offer.
 *
 * Each command runs in its own process group, so that stopping it reaches what it started (the docker
 * CLI runs buildx as a child process): SIGTERM to the group, SIGKILL KILL_GRACE_MS later if anything in it
 * is left. The result comes once the command has exited (and, when it was stopped, its group is gone or
 * SIGKILLed) and its output has drained, PIPE_DRAIN_MS at most: a process that keeps the pipes open cannot
 * hold the step.
 * If our own process exits first, live groups are SIGKILLed on the way out. A SIGKILL of our process
 * cannot be caught: the runner's kill at +10 s hits the node process only (NixKillProcessTree is
 * Process.Kill()), and whatever it started lives on until the runner's orphan cleanup at the end of the
 * job (src/Runner.Worker/JobExtension.cs: processes carrying the job's RUNNER_TRACKING_ID) — hence
 * stopping docker well before that kill.
 */
export class NodeExec implements Exec {
  private readonly logger?: Logger;
  private readonly killGraceMs: number;
  private readonly pipeDrainMs: number;
  private readonly clock: Clock;

  constructor(opts: NodeExecOpts = {}) {
    this.logger = opts.logger;
    this.killGraceMs = opts.killGraceMs ?? KILL_GRACE_MS;
    this.pipeDrainMs = opts.pipeDrainMs ?? PIPE_DRAIN_MS;
    this.clock = opts.clock ?? systemClock;
  }

  run(command: string, args: string[], opts: ExecOpts = {}): Promise<ExecResult> {
    if (!opts.logged) this.logger?.debug(`NodeExec.run: ${command} ${args.join(' ')}`);
    return new Promise<ExecResult>(resolve => {
      let stdout = '';
      let stderr = '';
      let killed: ExecResult['killed'];
      let exited: {code: number | null; signal: NodeJS.Signals | null} | undefined;
      let pipesClosed = false;
      let sigkillSent = false;
      let settled = false;
      const waits = new Set<Deadline>();
      const after = (ms: number, fn: () => void): void => {
        const wait = this.clock.deadline(ms);
        waits.add(wait);
        wait.signal.addEventListener(
          'abort',
          () => {
            waits.delete(wait);
            fn();
          },
          {once: true}
        );
      };
      const child = spawn(command, args, {
        env: childEnv(process.env, opts.env),
        cwd: opts.cwd,
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: GROUPS
      });
      const group = GROUPS && child.pid !== undefined ? new ProcessGroup(child.pid) : undefined;
      if (group) killOnExit(group);

      const echo = (line: string): void => {
        // The command's output is the build's or a user file's: printed as untrusted, no line of it is acted on.
        if (!opts.silent && line !== '') this.logger?.untrusted(line);
      };
      const lineSplitter = (): ((chunk: string, flush?: boolean) => void) => {
        let rest = '';
        return (chunk, flush) => {
          rest += chunk;
          const lines = rest.split('\n');
          rest = flush ? '' : (lines.pop() ?? '');
          lines.forEach(echo);
        };
      };
      const outLines = lineSplitter();
      const errLines = lineSplitter();
      child.stdout.setEncoding('utf8').on('data', (d: string) => {
        stdout += d;
        outLines(d);
      });
      child.stderr.setEncoding('utf8').on('data', (d: string) => {
        stderr += d;
        errLines(d);
      });

      const signalTree = (sig: NodeJS.Signals): void => {
        if (group) group.signal(sig);
        // Never signal a child that did not start (no pid): Node 20's kill() then signals an uninitialized
        // pid, which can be 0 or -1, i.e. our own process group or every process we may signal.
        else if (child.pid !== undefined) child.kill(sig);
      };
      const kill = (why: NonNullable<ExecResult['killed']>): void => {
        // A command that already exited ended on its own; its output is draining.
        if (settled || killed || exited) return;
        killed = why;
        signalTree('SIGTERM');
        after(this.killGraceMs, () => {
          sigkillSent = true;
          signalTree('SIGKILL');
          settleWhenDone();
        });
      };
      // The time limit or the caller's signal, whichever ends first, stops the command.
      const limit = this.clock.deadline(opts.timeoutMs, {parents: [opts.signal]});
      const onLimit = (): void => kill(limit.expired ? 'timeout' : 'aborted');
      if (limit.signal.aborted) onLimit();
      else limit.signal.addEventListener('abort', onLimit, {once: true});

      const finish = (exitCode: number, spawnError?: NodeJS.ErrnoException): void => {
        if (settled) return;
        settled = true;
        for (const w of waits) w.dispose();
        waits.clear();
        limit.dispose();
        if (group) liveGroups.delete(group);
        child.stdout.destroy();
        child.stderr.destroy();
        outLines('', true);
        errLines('', true);
        resolve({
          exitCode,
          stdout,
          stderr: spawnError ? `${stderr}${command}: ${spawnError.message}` : stderr,
          // A command that never started was not killed, whatever the signal did meanwhile.
          killed: spawnError ? undefined : killed,
          spawnError: spawnError ? (spawnError.code ?? 'unknown') : undefined
        });
      };
      let polling = false;
      let draining = false;
      // Called on every event that may end the run: exit, the pipes closing, a group check, the SIGKILL.
      const settleWhenDone = (): void => {
        if (settled || !exited) return;
        // A stopped command's group must be gone (or SIGKILLed) first, whoever holds the pipes.
        if (killed && !sigkillSent && group?.alive()) {
          if (!polling) {
            polling = true;
            after(GROUP_POLL_MS, () => {
              polling = false;
              settleWhenDone();
            });
          }
          return;
        }
        const {code, signal} = exited;
        const exitCode = code ?? (signal ? 128 + (constants.signals[signal] ?? 0) : 1);
        if (pipesClosed) return finish(exitCode);
        if (!draining) {
          draining = true;
          after(this.pipeDrainMs, () => finish(exitCode));
        }
      };
      // Only a failed spawn: a command that did start reports through 'exit' (never "cancelled" for this).
      child.on('error', err => finish(127, err));
      child.on('exit', (code, signal) => {
        exited = {code, signal};
        limit.dispose();
        settleWhenDone();
      });
      child.on('close', () => {
        pipesClosed = true;
        settleWhenDone();
      });
    });
  }
}

/** The process group a command leads (its pgid is its pid); signals to a group that is gone are no-ops. */
class ProcessGroup {
  constructor(private readonly pgid: number) {}

  signal(sig: NodeJS.Signals | 0): boolean {
    try {
      process.kill(-this.pgid, sig);
      return true;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ESRCH') return false;
      // EPERM: a member we may not signal (it changed its uid); it is still there.
      if (code === 'EPERM') return true;
      throw e;
    }
  }

  alive(): boolean {
    return this.signal(0);
  }
}

/** Groups of commands still running; SIGKILLed if our process exits before they are done. */
const liveGroups = new Set<ProcessGroup>();
let exitHooked = false;

function killOnExit(group: ProcessGroup): void {
  liveGroups.add(group);
  if (exitHooked) return;
  exitHooked = true;
  process.on('exit', () => {
    for (const g of liveGroups) g.signal('SIGKILL');
  });
}

/** The last non-empty line of a command's stderr (or stdout), for error messages. */
export function lastLine(res: Pick<ExecResult, 'stderr' | 'stdout'>): string {
  const lines = (res.stderr.trim() || res.stdout.trim()).split('\n');
  return lines[lines.length - 1]?.trim() || 'no output';
}
