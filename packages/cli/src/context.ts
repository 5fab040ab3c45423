import {ApiClient} from '@remote-builder-actions/core/ci';
import {
  NodeHttpTransport,
  Buildx,
  Env,
  InputError,
  resolveApiUrl,
  resolveCredentials,
  type ClosableBuilderApi,
  type Clock,
  type Exec,
  type Logger,
  type PollSchedule,
  type TlsProbe
} from '@remote-builder-actions/core';
import {str, type OptionValues} from './args.js';
import {nodeChildRunner, type ChildRunner} from './child-runner.js';
import {inCliWords} from './cli-wording.js';
import {formatJson, type TextSink} from './output.js';
import {defaultStateDir} from './state-file.js';
import {TerminalLogger} from './terminal-logger.js';

/** Where SIGINT and SIGTERM come from: `process`, or a test's emitter. */
export interface SignalSource {
  on(event: 'SIGINT' | 'SIGTERM', listener: (signal: NodeJS.Signals) => void): unknown;
  off(event: 'SIGINT' | 'SIGTERM', listener: (signal: NodeJS.Signals) => void): unknown;
}

/** Everything the CLI touches, injectable; production defaults in brackets. */
export interface CliDeps {
  /** Environment: credentials, API URL, XDG_STATE_HOME, PATH for docker and for `builder run`. */
  env: NodeJS.ProcessEnv;
  /** Results (tables, records, JSON, the builder name). */
  stdout: TextSink;
  /** Progress, warnings and errors. */
  stderr: TextSink;
  /** [process] */
  signals?: SignalSource;
  /** Runs `docker buildx …` [core's NodeExec, with `env`]. */
  exec?: Exec;
  /** Runs the command of `builder run` [child_process.spawn]. */
  spawn?: ChildRunner;
  /** Working directory of the command of `builder run` [process.cwd()]. */
  cwd?: string;
  /** Builds the API client [ApiClient over NodeHttpTransport]. */
  makeApi?: (opts: {baseUrl: string; token: string; logger: Logger}) => ApiClient;
  /** Passed to core's BuilderLifecycle [system clock, real mutual-TLS probe, default poll schedule]. */
  clock?: Clock;
  probe?: TlsProbe;
  schedule?: PollSchedule;
  /** Period of the "still …" progress lines [15000 ms; 0 disables]. */
  progressIntervalMs?: number;
  /** After forwarding a signal to the command of `builder run`, kill it with SIGKILL this much later [10000 ms]. */
  killAfterMs?: number;
  /** Whether the command of `builder run` gets this process's stdio [true when stdout is process.stdout]. */
  inheritStdio?: boolean;
}

/**
 * CommandContext is what a command runs with: the parsed global options, the terminal logger, output
 * helpers, the API client (built on first use, closed by runCli) and the cancellation signal.
 */
export class CommandContext {
  readonly deps: CliDeps;
  readonly logger: TerminalLogger;
  readonly json: boolean;
  /** Aborted (with a CancelledError) on the first SIGINT or SIGTERM. */
  readonly signal: AbortSignal;
  readonly #values: OptionValues;
  readonly #clients: ApiClient[] = [];
  readonly #signalListeners = new Set<(signal: NodeJS.Signals) => void>();
  #received?: NodeJS.Signals;

  /**
   * `coreWording`: the command runs core's builder lifecycle, whose messages speak to an action's step; its
   * lines are put in the CLI's words (inCliWords). Off for the other commands, whose lines quote the service's
   * answers about runners, which those rewrites must not touch.
   */
  constructor(deps: CliDeps, values: OptionValues, signal: AbortSignal, opts: {coreWording?: boolean} = {}) {
    this.deps = deps;
    this.#values = values;
    this.json = values.json === true;
    this.signal = signal;
    this.logger = new TerminalLogger({
      stream: deps.stderr,
      verbose: values.verbose === true,
      progressIntervalMs: deps.progressIntervalMs,
      wording: opts.coreWording ? inCliWords : undefined
    });
  }

  get env(): NodeJS.ProcessEnv {
    return this.deps.env;
  }

  /** The first signal received, if any. */
  get receivedSignal(): NodeJS.Signals | undefined {
    return this.#received;
  }

  /** Called by runCli for every SIGINT/SIGTERM. */
  notifySignal(signal: NodeJS.Signals): void {
    this.#received ??= signal;
    for (const l of this.#signalListeners) l(signal);
  }

  /** Calls `listener` on every signal until the returned function is called. */
  onSignal(listener: (signal: NodeJS.Signals) => void): () => void {
    this.#signalListeners.add(listener);
    return () => this.#signalListeners.delete(listener);
  }

  /** Writes a result to stdout. */
  out(text: string): void {
    this.deps.stdout.write(this.logger.mask(text));
  }

  /** Writes `value` as JSON to stdout. */
  outJson(value: unknown): void {
    this.out(formatJson(value));
  }

  /** The API base URL: --api-url, else REMOTE_BUILDER_API_URL (https, or http to a loopback host). */
  apiUrl(): string {
    const flag = str(this.#values, 'api-url') ?? '';
    if (flag.trim() === '' && (this.env[Env.ApiUrl] ?? '').trim() === '') {
      throw new InputError('--api-url', `is required: set ${Env.ApiUrl} to the service's base URL, or pass --api-url`);
    }
    return resolveApiUrl(flag, this.env, '--api-url');
  }

  /** The API key: --api-key, else REMOTE_BUILDER_API_KEY (else REMOTE_BUILDER_RUNNER_TOKEN on the service's runners). */
  token(): string {
    const flag = str(this.#values, 'api-key') ?? '';
    if (flag.trim() === '' && !(this.env[Env.ApiKey] ?? '').trim() && !(this.env[Env.RunnerToken] ?? '').trim()) {
      throw new InputError(
        '--api-key',
        `is required: set ${Env.ApiKey} to an API key from the API keys page of the web UI, or pass --api-key`
      );
    }
    const {token} = resolveCredentials(flag, this.env, '--api-key');
    this.logger.setSecret(token);
    return token;
  }

  /** A client of the service at `baseUrl` (default: apiUrl()), closed when the command ends. */
  api(baseUrl?: string): ApiClient {
    const url = baseUrl ?? this.apiUrl();
    const token = this.token();
    // The proxy variables are read from this CLI's environment (the one tests and embedders inject).
    const make =
      this.deps.makeApi ??
      (o =>
        new ApiClient({
          baseUrl: o.baseUrl,
          token: o.token,
          logger: o.logger,
          transport: new NodeHttpTransport({env: this.env}),
          // The service's hints name what to fix in the CLI's terms.
          inputNames: {apiUrl: '--api-url', apiKey: `API key (--api-key or ${Env.ApiKey})`, profileName: '--profile'}
        }));
    const client = make({baseUrl: url, token, logger: this.logger});
    this.#clients.push(client);
    return client;
  }

  /**
   * The builder API for provisioning, like core's createBuilderApiClient: details and teardown with the
   * per-request limit, the assignment with `assignTimeoutMs` (a lost assignment answer bills a builder
   * nobody can name, so it is not cut at 15 s). The client is closed when the command ends.
   */
  builderApi(baseUrl: string, assignTimeoutMs: number): ClosableBuilderApi {
    const {builders} = this.api(baseUrl);
    return {
      assignBuilder: (profile, o) => builders.assignBuilder(profile, {signal: o?.signal, timeoutMs: assignTimeoutMs}),
      getBuilderDetails: (id, o) => builders.getBuilderDetails(id, o),
      teardownBuilder: (id, o) => builders.teardownBuilder(id, o),
      // Closed with the command (close()): a session's teardown still uses it after provisioning.
      close: () => undefined
    };
  }

  /** docker buildx, run with this CLI's environment (PATH finds docker). */
  buildx(): Buildx {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(this.env)) if (v !== undefined) env[k] = v;
    return new Buildx({logger: this.logger, env, exec: this.deps.exec, findPlugin: this.deps.exec === undefined});
  }

  stateDir(): string {
    return defaultStateDir(this.env);
  }

  spawner(): ChildRunner {
    return this.deps.spawn ?? nodeChildRunner;
  }

  /** Closes every API client made. */
  close(): void {
    for (const c of this.#clients.splice(0)) c.close();
  }
}
