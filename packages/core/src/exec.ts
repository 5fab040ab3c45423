import {spawn} from 'node:child_process';
import {constants} from 'node:os';
import type {Logger} from './logger.js';

export interface ExecOpts {
  /** Extra environment, merged over process.env. */
  env?: Record<string, string>;
  /** Kill the command (SIGTERM, then SIGKILL 2 s later) after this many ms. */
  timeoutMs?: number;
  /** Kill the command when this aborts. */
  signal?: AbortSignal;
  /** Do not echo output lines to the logger. */
  silent?: boolean;
  cwd?: string;
}

export interface ExecResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** Set when the command was killed because of timeoutMs or the signal. */
  killed?: 'timeout' | 'aborted';
}

/** Exec is the one seam through which core runs programs (docker buildx); tests inject a fake. */
export interface Exec {
  run(command: string, args: string[], opts?: ExecOpts): Promise<ExecResult>;
}

export interface NodeExecOpts {
  logger?: Logger;
}

/**
 * NodeExec runs programs with child_process.spawn: argv only, never a shell. It exists instead of
 * @actions/exec because we need time limits and cancellation, which @actions/exec does not offer.
 */
export class NodeExec implements Exec {
  private readonly logger?: Logger;

  constructor(opts: NodeExecOpts = {}) {
    this.logger = opts.logger;
  }

  run(command: string, args: string[], opts: ExecOpts = {}): Promise<ExecResult> {
    this.logger?.debug(`NodeExec.run: ${command} ${args.join(' ')}`);
    return new Promise<ExecResult>(resolve => {
      let stdout = '';
      let stderr = '';
      let killed: ExecResult['killed'];
      let settled = false;
      const child = spawn(command, args, {
        env: opts.env ? {...process.env, ...opts.env} : process.env,
        cwd: opts.cwd,
        stdio: ['ignore', 'pipe', 'pipe']
      });
      const echo = (line: string): void => {
        if (!opts.silent && line !== '') this.logger?.info(line);
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
      const kill = (why: NonNullable<ExecResult['killed']>): void => {
        if (settled || killed) return;
        killed = why;
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 2000).unref();
      };
      const timer = opts.timeoutMs !== undefined ? setTimeout(() => kill('timeout'), opts.timeoutMs) : undefined;
      const onAbort = (): void => kill('aborted');
      if (opts.signal?.aborted) onAbort();
      opts.signal?.addEventListener('abort', onAbort, {once: true});
      const finish = (exitCode: number, extraErr = ''): void => {
        if (settled) return;
        settled = true;
        if (timer) clearTimeout(timer);
        opts.signal?.removeEventListener('abort', onAbort);
        outLines('', true);
        errLines('', true);
        resolve({exitCode, stdout, stderr: stderr + extraErr, ...(killed ? {killed} : {})});
      };
      child.on('error', err => finish(127, `${command}: ${err.message}`));
      child.on('close', (code, sig) => finish(code ?? (sig ? 128 + (constants.signals[sig] ?? 0) : 1)));
    });
  }
}

/** The last non-empty line of a command's stderr (or stdout), for error messages. */
export function lastLine(res: Pick<ExecResult, 'stderr' | 'stdout'>): string {
  const lines = (res.stderr.trim() || res.stdout.trim()).split('\n');
  return lines[lines.length - 1]?.trim() || 'no output';
}
