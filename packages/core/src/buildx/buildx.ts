import {
  createNodeArgs,
  inspectBootstrapArgs,
  rmArgs,
  inspectArgs,
  versionArgs,
  type CreateNodeArgsOpts
} from './buildx-args.js';
import {existsSync, rmSync} from 'node:fs';
import {homedir} from 'node:os';
import {join} from 'node:path';
import {lastLine, NodeExec, type Exec} from '../exec.js';
import type {Logger} from '../logger.js';
import {nullLogger} from '../logger.js';

export interface BuildxOpts {
  exec?: Exec;
  logger?: Logger;
  /** The docker CLI to run; default `docker`. */
  docker?: string;
  /** Extra environment for every call (e.g. DOCKER_CONFIG). */
  env?: Record<string, string>;
}

/** A `docker buildx` command failed (locally: retrying on another profile would not help). */
export class BuildxError extends Error {
  /** The command was killed at its time limit. */
  readonly timedOut: boolean;
  constructor(message: string, opts: {timedOut?: boolean} = {}) {
    super(message);
    this.name = 'BuildxError';
    this.timedOut = opts.timedOut ?? false;
  }
}

/** Buildx runs the few `docker buildx` commands the lifecycle needs, argv built by buildx-args. */
export class Buildx {
  private readonly exec: Exec;
  private readonly logger: Logger;
  private readonly docker: string;
  private readonly env?: Record<string, string>;

  constructor(opts: BuildxOpts = {}) {
    this.logger = opts.logger ?? nullLogger;
    this.exec = opts.exec ?? new NodeExec({logger: this.logger});
    this.docker = opts.docker ?? 'docker';
    this.env = opts.env;
  }

  /** The buildx version (e.g. "0.13.1"), or throws when docker or buildx is unavailable. */
  async version(opts: {signal?: AbortSignal} = {}): Promise<string> {
    const res = await this.run(versionArgs(), {silent: true, timeoutMs: 15000, signal: opts.signal});
    if (res.exitCode !== 0) throw new BuildxError(`docker buildx is not available: ${lastLine(res)}`);
    const m = /v?(\d+\.\d+\.\d+)/.exec(res.stdout);
    return m?.[1] ?? res.stdout.trim();
  }

  /** Creates the builder (first node) or appends a node to it. */
  async createNode(opts: CreateNodeArgsOpts, runOpts: {signal?: AbortSignal; timeoutMs?: number} = {}): Promise<void> {
    const res = await this.run(createNodeArgs(opts), runOpts);
    if (res.exitCode !== 0) {
      const what = opts.append
        ? `append node ${opts.node} to buildx builder "${opts.name}"`
        : `create buildx builder "${opts.name}" (node ${opts.node})`;
      throw new BuildxError(`Failed to ${what}: ${lastLine(res)}`);
    }
  }

  /** Boots every node (connects to it); throws with buildx's last error line. */
  async bootstrap(name: string, runOpts: {signal?: AbortSignal; timeoutMs?: number} = {}): Promise<string> {
    const res = await this.run(inspectBootstrapArgs(name), runOpts);
    if (res.exitCode !== 0) {
      const why = res.killed === 'timeout' ? `no answer within ${runOpts.timeoutMs} ms` : lastLine(res);
      throw new BuildxError(`Failed to bootstrap buildx builder "${name}": ${why}`);
    }
    return res.stdout;
  }

  /** True when buildx knows a builder of that name. */
  async exists(name: string, runOpts: {timeoutMs?: number} = {}): Promise<boolean> {
    const res = await this.run(inspectArgs(name), {silent: true, ...runOpts});
    return res.exitCode === 0;
  }

  /**
   * Removes the builder locally; bounded in time so a stuck buildx cannot hang the post step.
   * Resolves 'absent' when buildx has no builder of that name.
   */
  async rm(name: string, runOpts: {signal?: AbortSignal; timeoutMs?: number} = {}): Promise<'removed' | 'absent'> {
    const res = await this.run(rmArgs(name), runOpts);
    if (res.exitCode === 0) return 'removed';
    if (/no builder .* found/i.test(res.stderr)) return 'absent';
    const timedOut = res.killed === 'timeout';
    const why = timedOut ? `no answer within ${runOpts.timeoutMs} ms` : lastLine(res);
    throw new BuildxError(`Failed to remove buildx builder "${name}": ${why}`, {timedOut});
  }

  /**
   * Deletes the builder's record from buildx's store without asking buildx: the last resort when
   * `buildx rm` stalls on an endpoint that no longer answers (docker/setup-buildx-action#615).
   */
  forget(name: string): boolean {
    const config = this.env?.['DOCKER_CONFIG'] ?? process.env['DOCKER_CONFIG'] ?? join(homedir(), '.docker');
    const record = join(config, 'buildx', 'instances', name);
    if (!/^[A-Za-z0-9._-]+$/.test(name) || !existsSync(record)) return false;
    rmSync(record, {force: true});
    return true;
  }

  private run(args: string[], opts: {silent?: boolean; timeoutMs?: number; signal?: AbortSignal}) {
    return this.exec.run(this.docker, args, {...opts, ...(this.env ? {env: this.env} : {})});
  }
}
