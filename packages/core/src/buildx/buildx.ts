import {
  createNodeArgs,
  inspectBootstrapArgs,
  rmArgs,
  inspectArgs,
  versionArgs,
  type CreateNodeArgsOpts
} from './buildx-args.js';
import {existsSync, rmSync} from 'node:fs';
import {join} from 'node:path';
import {userDockerConfigDir} from '../buildx-install/plugin-docker-config.js';
import {lastLine, NodeExec, type Exec} from '../exec.js';
import type {Logger} from '../logger.js';
import {nullLogger} from '../logger.js';
import {BuildxError} from './buildx-error.js';
import {BuildxUnavailableError} from './buildx-unavailable.js';

export {BuildxError} from './buildx-error.js';

export interface BuildxOpts {
  exec?: Exec;
  logger?: Logger;
  /** The docker CLI to run; default `docker`. */
  docker?: string;
  /** Extra environment for every call (e.g. DOCKER_CONFIG). */
  env?: Record<string, string>;
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

  /**
   * The buildx version as docker's actions read it (Buildx.parseVersion): "0.13.1", or a dev build's
   * 7-hex commit (which satisfies every version gate). Throws BuildxUnavailableError when docker or buildx
   * cannot run (with docker's own reason and the fix), a BuildxError when the output has no version, and a
   * BuildxError naming the cancellation when `signal` stopped it.
   */
  async version(opts: {signal?: AbortSignal; alternative?: string} = {}): Promise<string> {
    const timeoutMs = 15000;
    const res = await this.run(versionArgs(), {silent: true, timeoutMs, signal: opts.signal});
    const unavailable = BuildxUnavailableError.fromResult(res, {
      docker: this.docker,
      timeoutMs,
      alternative: opts.alternative
    });
    if (unavailable) throw unavailable;
    if (res.killed === 'aborted') throw new BuildxError('`docker buildx version` was stopped: the step was cancelled');
    const version = Buildx.parseVersion(res.stdout);
    if (version === undefined) {
      throw new BuildxError(
        `Cannot parse the buildx version from \`${this.docker} buildx version\`: ${JSON.stringify(res.stdout.trim().slice(0, 200))}; check the buildx plugin on the runner`
      );
    }
    return version;
  }

  /**
   * The version in `docker buildx version` output, with docker's regex (@docker/actions-toolkit
   * Buildx.parseVersion): "github.com/docker/buildx v0.13.1 7884…" → "0.13.1", "… 0.17.1-desktop.1 …" →
   * "0.17.1", a dev build "github.com/docker/buildx 1a2b3c4 1a2b3c4…" → "1a2b3c4". Undefined when none.
   */
  static parseVersion(stdout: string): string | undefined {
    return /\sv?([0-9a-f]{7}|[0-9.]+)/.exec(stdout)?.[1];
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
    const record = join(this.configDir(), 'instances', name);
    if (!/^[A-Za-z0-9._-]+$/.test(name) || !existsSync(record)) return false;
    rmSync(record, {force: true});
    return true;
  }

  /**
   * buildx's own directory (docker's Buildx.configDir): BUILDX_CONFIG, else `buildx` in the docker config
   * directory (DOCKER_CONFIG, default ~/.docker). Our `env` for the calls comes first, as buildx sees it.
   */
  configDir(): string {
    // Our env is merged over process.env for the calls; buildx treats an empty variable as unset.
    const env = {...process.env, ...this.env};
    return env['BUILDX_CONFIG'] || join(userDockerConfigDir(env), 'buildx');
  }

  private run(args: string[], opts: {silent?: boolean; timeoutMs?: number; signal?: AbortSignal}) {
    return this.exec.run(this.docker, args, {...opts, ...(this.env ? {env: this.env} : {})});
  }
}
