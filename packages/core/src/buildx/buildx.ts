import {
  createNodeArgs,
  inspectBootstrapArgs,
  rmArgs,
  inspectArgs,
  versionArgs,
  type CreateNodeArgsOpts
} from './buildx-args.js';
import {existsSync} from 'node:fs';
import {join} from 'node:path';
import {userDockerConfigDir} from '../buildx-install/plugin-docker-config.js';
import {lastLine, NodeExec, type Exec, type ExecResult} from '../exec.js';
import type {Logger} from '../logger.js';
import {nullLogger} from '../logger.js';
import {BuildxError} from './buildx-error.js';
import {BUILDX_NAME, forgetBuilder} from './buildx-forget.js';
import {builderRecordPath} from './buildx-store.js';
import {findBuildxPlugin, PLUGIN_MODE_ENV, runPluginVersion} from './buildx-plugin.js';
import {takeEarlyBuildxVersion, VERSION_TIMEOUT_MS} from './early-version.js';
import {BuildxUnavailableError} from './buildx-unavailable.js';
import {dockerInfoArgs, parseImageStore, type ImageStoreProbe} from './image-store.js';
import {checkNodesUp} from './nodes-down.js';

export {BuildxError} from './buildx-error.js';
export {BuilderNodesDownError} from './nodes-down.js';
export type {ImageStore, ImageStoreProbe} from './image-store.js';

export interface BuildxOpts {
  exec?: Exec;
  logger?: Logger;
  /** The docker CLI to run; default `docker`. */
  docker?: string;
  /** Extra environment for every call (e.g. DOCKER_CONFIG). */
  env?: Record<string, string>;
  /**
   * Whether the buildx plugin may be looked up on this machine and run directly. Default: only when `exec`
   * is not injected (a test's fake exec scripts every call, whatever docker this machine has).
   */
  findPlugin?: boolean;
}

/**
 * Buildx runs the few `docker buildx` commands the lifecycle needs, argv built by buildx-args. Each runs as
 * the plugin itself when docker would run that plugin (findBuildxPlugin): one process where `docker buildx`
 * takes three (docker, the plugin's metadata, the plugin), ~30–90 ms less on a runner for each command.
 */
export class Buildx {
  private readonly exec: Exec;
  private readonly logger: Logger;
  private readonly docker: string;
  private readonly env?: Record<string, string>;
  private readonly findPlugin: boolean;
  /** The plugin found (looked up once); null when docker is asked instead. */
  private pluginPath?: string | null;

  constructor(opts: BuildxOpts = {}) {
    this.logger = opts.logger ?? nullLogger;
    this.exec = opts.exec ?? new NodeExec({logger: this.logger});
    this.docker = opts.docker ?? 'docker';
    this.env = opts.env;
    this.findPlugin = opts.findPlugin ?? opts.exec === undefined;
  }

  /**
   * The buildx version as docker's actions read it (Buildx.parseVersion): "0.13.1", or a dev build's
   * 7-hex commit (which satisfies every version gate). Throws BuildxUnavailableError when docker or buildx
   * cannot run (with docker's own reason and the fix), a BuildxError when the output has no version, and a
   * BuildxError naming the cancellation when `signal` stopped it. Asks the plugin directly when it is found
   * as docker finds it (findBuildxPlugin; `plugin` gives one, false asks docker only), else, or when the
   * plugin does not answer, `docker buildx version`.
   */
  async version(opts: {signal?: AbortSignal; alternative?: string; plugin?: string | false} = {}): Promise<string> {
    const timeoutMs = VERSION_TIMEOUT_MS;
    const found = this.plugin();
    const plugin = opts.plugin ?? found;
    const direct = plugin
      ? await runPluginVersion(plugin, {
          exec: this.exec,
          logger: this.logger,
          env: this.env,
          timeoutMs,
          signal: opts.signal,
          started: this.early(plugin, ['version'], opts.signal)
        })
      : undefined;
    if (direct?.killed === 'aborted')
      throw new BuildxError('`docker buildx version` was stopped: the step was cancelled');
    const answered = direct && Buildx.parseVersion(direct.stdout);
    if (answered) return answered;
    // A plugin that does not answer `version` runs nothing else of ours either: docker is asked, and says why.
    if (plugin === found) this.pluginPath = null;
    const res = await (this.early(this.docker, versionArgs(), opts.signal) ??
      this.run(versionArgs(), {silent: true, timeoutMs, signal: opts.signal}));
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
   * The early run of `command args` (early-version.ts) when this Buildx would run exactly that: the
   * production one (it looks plugins up), with the process's own environment.
   */
  private early(command: string, args: string[], signal?: AbortSignal): Promise<ExecResult> | undefined {
    if (!this.findPlugin || Object.keys(this.env ?? {}).length > 0) return undefined;
    const started = takeEarlyBuildxVersion(command, args, signal);
    if (started)
      this.logger.debug(`Buildx.version: \`${command} ${args.join(' ')}\` was started while the step loaded`);
    return started;
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
    const res = await this.runBuildx(createNodeArgs(opts), runOpts);
    if (res.exitCode !== 0) {
      const what = opts.append
        ? `append node ${opts.node} to buildx builder "${opts.name}"`
        : `create buildx builder "${opts.name}" (node ${opts.node})`;
      throw new BuildxError(`Failed to ${what}: ${lastLine(res)}`);
    }
  }

  /**
   * Boots every node (connects to it) and returns the inspect output; throws with buildx's last error line,
   * or a BuilderNodesDownError when buildx exited 0 with a node not running (see checkNodesUp).
   */
  async bootstrap(name: string, runOpts: {signal?: AbortSignal; timeoutMs?: number} = {}): Promise<string> {
    const res = await this.runBuildx(inspectBootstrapArgs(name), runOpts);
    if (res.exitCode !== 0) {
      const why = res.killed === 'timeout' ? `no answer within ${runOpts.timeoutMs} ms` : lastLine(res);
      throw new BuildxError(`Failed to bootstrap buildx builder "${name}": ${why}`);
    }
    checkNodesUp(name, res.stdout, res.stderr);
    return res.stdout;
  }

  /** True when buildx knows a builder of that name. */
  async exists(name: string, runOpts: {timeoutMs?: number} = {}): Promise<boolean> {
    const res = await this.runBuildx(inspectArgs(name), {silent: true, ...runOpts});
    return res.exitCode === 0;
  }

  /**
   * Removes the builder locally; bounded in time so a stuck buildx cannot hang the post step. Resolves
   * 'absent' when buildx has no builder of that name. When `buildx rm` fails (but was not stopped), the
   * builder's files are deleted anyway (forget): buildx < 0.36 refuses to remove a builder it cannot load and
   * keeps them, buildx >= 0.36 deletes them and still fails (docker/buildx#3934); the builder counts as
   * removed when its record was there and is now gone. A stopped rm (time limit, cancellation) and any other
   * failure throw, as before.
   */
  async rm(name: string, runOpts: {signal?: AbortSignal; timeoutMs?: number} = {}): Promise<'removed' | 'absent'> {
    const res = await this.runBuildx(rmArgs(name), runOpts);
    if (res.exitCode === 0) return 'removed';
    if (/no builder .* found/i.test(res.stderr)) return 'absent';
    const timedOut = res.killed === 'timeout';
    // buildx prints the cause as `failed to remove <name>: <error>`, then a summary line.
    const cause = res.stderr.split(/\r?\n/).find(l => l.startsWith(`failed to remove ${name}: `));
    const why = timedOut ? `no answer within ${runOpts.timeoutMs} ms` : (cause?.trim() ?? lastLine(res));
    if (res.killed === undefined && BUILDX_NAME.test(name)) {
      const record = builderRecordPath(this.configDir(), name);
      const kept = existsSync(record);
      this.forget(name);
      if (kept && !existsSync(record)) {
        this.logger.info(
          `\`docker buildx rm ${name}\` failed (${why}) and kept the builder's files; removed them from ${this.configDir()} (buildx < 0.36 keeps a builder it cannot load: docker/buildx#3934)`
        );
        return 'removed';
      }
    }
    throw new BuildxError(`Failed to remove buildx builder "${name}": ${why}`, {timedOut});
  }

  /**
   * Deletes the builder's files from buildx's store without asking buildx (forgetBuilder): for a builder
   * buildx will not remove. True when anything was deleted; never throws.
   */
  forget(name: string): boolean {
    return forgetBuilder(this.configDir(), name, this.logger);
  }

  /**
   * The image store of the engine `--load` imports into (`docker info`, see image-store.ts); undefined
   * store with the reason when docker cannot tell (no engine reachable, time limit, cancellation).
   */
  async imageStore(runOpts: {signal?: AbortSignal; timeoutMs?: number} = {}): Promise<ImageStoreProbe> {
    const timeoutMs = runOpts.timeoutMs ?? 15000;
    const res = await this.run(dockerInfoArgs(), {silent: true, timeoutMs, signal: runOpts.signal});
    if (res.killed)
      return {store: undefined, why: res.killed === 'timeout' ? `no answer within ${timeoutMs} ms` : 'stopped'};
    if (res.exitCode !== 0) return {store: undefined, why: lastLine(res)};
    return parseImageStore(res.stdout);
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

  /** The plugin `docker buildx` would run, when this Buildx may run it directly (findPlugin). */
  private plugin(): string | undefined {
    if (this.pluginPath === undefined) {
      const env = {...process.env, ...this.env};
      this.pluginPath = (this.findPlugin && findBuildxPlugin({docker: this.docker, env})) || null;
    }
    return this.pluginPath ?? undefined;
  }

  /**
   * `docker buildx <args>` (args from buildx-args, `buildx` first): run as the plugin itself, told it runs
   * standalone, when there is one to run; through docker when there is none or it cannot start (a spawn
   * error: nothing ran, so nothing runs twice). Its exit code and output are buildx's either way.
   */
  private async runBuildx(args: string[], opts: RunOpts): Promise<ExecResult> {
    return this.runCommand(args, opts);
  }

  /**
   * `docker buildx <args>` (`buildx` first) built elsewhere (the build record's `history` commands), run as
   * the plugin itself when docker would run one, like this class's own commands: the builder is billed while
   * it runs, and docker's own start is ~0.3–0.5 s of it on a busy runner.
   */
  async command(args: string[], opts: RunOpts = {}): Promise<ExecResult> {
    return this.runCommand(args, opts);
  }

  private async runCommand(args: string[], opts: RunOpts): Promise<ExecResult> {
    const plugin = this.plugin();
    if (plugin && args[0] === 'buildx') {
      const res = await this.exec.run(plugin, args.slice(1), {...opts, env: {...this.env, [PLUGIN_MODE_ENV]: ''}});
      if (res.spawnError === undefined) return res;
      this.logger.debug(`Buildx: \`${plugin}\` could not start (${res.spawnError}); running \`${this.docker} buildx\``);
      this.pluginPath = null;
    }
    return this.run(args, opts);
  }

  private run(args: string[], opts: RunOpts): Promise<ExecResult> {
    return this.exec.run(this.docker, args, {...opts, env: this.env});
  }
}

type RunOpts = {silent?: boolean; timeoutMs?: number; signal?: AbortSignal};
