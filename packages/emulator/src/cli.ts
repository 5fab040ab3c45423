import {mkdtempSync, realpathSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {pathToFileURL} from 'node:url';
import {closest} from '@remote-builder-actions/cli';
import type {ApiKey} from './auth.js';
import {BUILDER_ID_FORMS, type BuilderIdForm} from './builder-registry.js';
import {BUILDKIT_APIS, type BuildkitApi} from './buildkit-backend.js';
import {DEFAULT_BUILDKIT_VERSION} from './buildkit-control.js';
import {type EmulatorConfigFile, loadEmulatorConfig} from './config-file.js';
import {Emulator, type EmulatorOpts} from './emulator.js';
import {exitAfterOutput} from './exit-after-output.js';
import type {LedgerEntry} from './ledger.js';
import type {Architecture} from './pricing.js';

export {loadEmulatorConfig, type EmulatorConfigFile} from './config-file.js';

/** Parsed command line of the emulator CLI. */
export interface CliOptions {
  help: boolean;
  host?: string;
  port: number;
  profilesPath?: string;
  apiKey?: string;
  dockerSocket?: string;
  /** --docker-socket-amd64 / --docker-socket-arm64: a dockerd for the builders of that architecture. */
  dockerSocketByArch?: Partial<Record<Architecture, string>>;
  /** --buildkit-api: what builders without a dockerd answer. */
  buildkitApi?: BuildkitApi;
  /** --buildkit-version: the BuildKit version they report. */
  buildkitVersion?: string;
  /** --builder-ids: the form of builder ids. */
  builderIds?: BuilderIdForm;
  latencyMs?: number;
  idleTimeoutMs?: number;
  /** Serve HTTPS with a certificate for this name (signed by a private CA generated at start). */
  httpsHostname?: string;
  /** Where to write the PEM of that CA (default: a temporary file, removed at exit). */
  caOut?: string;
  /** Do not print a line per API request. */
  quiet: boolean;
}

/** Usage text of the CLI. */
export const CLI_USAGE = `Usage: remote-builder-emulator [options]   (in this repository: npm run emulator -- [options])

Runs the remote-builder service emulator (builder API under /api/v1, admin under /_emulator).

Options:
  --port N               API port (default 0: any free port)
  --host ADDR            API listen address (default 127.0.0.1)
  --profiles FILE        JSON file {"profiles": [...], "apiKeys": [...]} (default: one profile "default", amd64)
  --api-key KEY          accept KEY (scopes ci, cache, builders) besides the file's keys;
                         with neither, the key is emulator-key
  --docker-socket PATH   proxy builders to this dockerd's BuildKit (without it: --buildkit-api)
  --docker-socket-amd64 PATH, --docker-socket-arm64 PATH
                         proxy the builders of that architecture to this dockerd instead, so that
                         each node of a multi-arch assignment has its own BuildKit, as in the service
  --buildkit-api API     what builders without a dockerd answer: control (default: BuildKit's
                         Control API, Info and ListWorkers), no-info (Info UNIMPLEMENTED, as
                         BuildKit < 0.11) or preface-only (HTTP/2 preface, no call answered)
  --buildkit-version V   the BuildKit version they report (default ${DEFAULT_BUILDKIT_VERSION})
  --builder-ids FORM     the form of builder ids: prefixed (default, bld_<hex>), uuid (mixed case)
                         or numeric (digits only)
  --latency-ms N         latency added to every API response (default 0)
  --idle-timeout-ms N    builder idle time-out (default 1800000; 0 disables)
  --https NAME           serve the API over HTTPS with a certificate for NAME (and localhost,
                         127.0.0.1) signed by a private CA generated at start
  --ca-out FILE          with --https: write that CA's PEM to FILE (default: a temporary file);
                         clients trust it with NODE_EXTRA_CA_CERTS=FILE
  --quiet                do not print a line per API request
  -h, --help             show this help`;

/** CliUsageError is a bad command line; the message says what is wrong. */
export class CliUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CliUsageError';
  }
}

const VALUE_FLAGS = [
  '--port',
  '--host',
  '--profiles',
  '--api-key',
  '--docker-socket',
  '--docker-socket-amd64',
  '--docker-socket-arm64',
  '--buildkit-api',
  '--buildkit-version',
  '--builder-ids',
  '--latency-ms',
  '--idle-timeout-ms',
  '--https',
  '--ca-out'
] as const;

/** Parses CLI arguments (`--flag value` or `--flag=value`); throws CliUsageError. Pure. */
export function parseCliArgs(argv: readonly string[]): CliOptions {
  const opts: CliOptions = {help: false, port: 0, quiet: false};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '-h' || arg === '--help') {
      opts.help = true;
      continue;
    }
    if (arg === '--quiet') {
      opts.quiet = true;
      continue;
    }
    const eq = arg.indexOf('=');
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    if (!(VALUE_FLAGS as readonly string[]).includes(flag)) {
      const guess = flag.startsWith('--') ? closest(flag, [...VALUE_FLAGS, '--quiet', '--help']) : undefined;
      throw new CliUsageError(`Unknown option ${arg}${guess ? `; did you mean ${guess}?` : ''}`);
    }
    let value: string | undefined;
    if (eq > 0) value = arg.slice(eq + 1);
    else {
      value = argv[i + 1];
      i += 1;
    }
    if (value === undefined || value === '' || (eq < 0 && value.startsWith('--'))) {
      throw new CliUsageError(`Option ${flag} needs a value`);
    }
    switch (flag as (typeof VALUE_FLAGS)[number]) {
      case '--port':
        opts.port = intOption(flag, value, 0, 65535);
        break;
      case '--host':
        opts.host = value;
        break;
      case '--profiles':
        opts.profilesPath = value;
        break;
      case '--api-key':
        opts.apiKey = value;
        break;
      case '--docker-socket':
        opts.dockerSocket = value;
        break;
      case '--docker-socket-amd64':
      case '--docker-socket-arm64':
        opts.dockerSocketByArch = {
          ...opts.dockerSocketByArch,
          [flag === '--docker-socket-amd64' ? 'amd64' : 'arm64']: value
        };
        break;
      case '--buildkit-api':
        opts.buildkitApi = oneOf(flag, value, BUILDKIT_APIS);
        break;
      case '--buildkit-version':
        opts.buildkitVersion = value;
        break;
      case '--builder-ids':
        opts.builderIds = oneOf(flag, value, BUILDER_ID_FORMS);
        break;
      case '--latency-ms':
        opts.latencyMs = intOption(flag, value, 0, Number.MAX_SAFE_INTEGER);
        break;
      case '--idle-timeout-ms':
        opts.idleTimeoutMs = intOption(flag, value, 0, Number.MAX_SAFE_INTEGER);
        break;
      case '--https':
        opts.httpsHostname = value;
        break;
      case '--ca-out':
        opts.caOut = value;
        break;
    }
  }
  if (opts.caOut !== undefined && opts.httpsHostname === undefined) {
    throw new CliUsageError('Option --ca-out needs --https');
  }
  return opts;
}

/** `value` when it is one of `allowed`; else a CliUsageError naming them. */
function oneOf<T extends string>(flag: string, value: string, allowed: readonly T[]): T {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new CliUsageError(`Option ${flag} must be one of ${allowed.join(', ')}, got ${JSON.stringify(value)}`);
}

function intOption(flag: string, value: string, min: number, max: number): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max) {
    throw new CliUsageError(`Option ${flag} must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}`);
  }
  return n;
}

/** The profile used when no profiles file is given. */
export const DEFAULT_CLI_PROFILE = {name: 'default', architectures: ['amd64' as const]};

/**
 * Emulator options from the command line and the (optional) profiles file. Keys: the file's, plus
 * `--api-key` with every scope; when neither gives one, the emulator's default key. Pure.
 */
export function emulatorOptsFromCli(cli: CliOptions, config?: EmulatorConfigFile): EmulatorOpts {
  const keys: ApiKey[] = [...(config?.apiKeys ?? [])];
  if (cli.apiKey !== undefined) keys.push({key: cli.apiKey, scopes: ['ci', 'cache', 'builders']});
  const opts: EmulatorOpts = {
    port: cli.port,
    profiles: config
      ? config.profiles
      : [{...DEFAULT_CLI_PROFILE, architectures: [...DEFAULT_CLI_PROFILE.architectures]}]
  };
  if (keys.length > 0) opts.apiKeys = keys;
  if (cli.host !== undefined) opts.host = cli.host;
  if (cli.dockerSocket !== undefined) opts.dockerSocket = cli.dockerSocket;
  if (cli.dockerSocketByArch !== undefined) opts.dockerSocketByArch = {...cli.dockerSocketByArch};
  if (cli.buildkitApi !== undefined || cli.buildkitVersion !== undefined) {
    opts.buildkit = {api: cli.buildkitApi, version: cli.buildkitVersion};
  }
  if (cli.builderIds !== undefined) opts.builderIds = cli.builderIds;
  if (cli.latencyMs !== undefined) opts.latencyMs = cli.latencyMs;
  if (cli.idleTimeoutMs !== undefined) opts.idleTimeoutMs = cli.idleTimeoutMs;
  if (cli.httpsHostname !== undefined) opts.https = {hostnames: [cli.httpsHostname]};
  return opts;
}

/** Writable sinks of the CLI. */
export interface CliIo {
  out: (line: string) => void;
  err: (line: string) => void;
}

/**
 * Runs the CLI: starts the emulator, prints the URL and API key, waits for SIGINT or SIGTERM (or `stop`),
 * closes the emulator and prints the ledger. Resolves with the exit code.
 */
export async function runCli(
  argv: readonly string[],
  io: CliIo = {out: l => console.log(l), err: l => console.error(l)},
  stop?: Promise<unknown>
): Promise<number> {
  let cli: CliOptions;
  let opts: EmulatorOpts;
  try {
    cli = parseCliArgs(argv);
    if (cli.help) {
      io.out(CLI_USAGE);
      return 0;
    }
    const config = cli.profilesPath ? await loadEmulatorConfig(cli.profilesPath) : undefined;
    opts = emulatorOptsFromCli(cli, config);
  } catch (e) {
    io.err(e instanceof Error ? e.message : String(e));
    if (e instanceof CliUsageError) io.err(`\n${CLI_USAGE}`);
    return 2;
  }
  let emu: Emulator;
  try {
    emu = await Emulator.start({...opts, log: cli.quiet ? undefined : line => io.out(`[emulator] ${line}`)});
  } catch (e) {
    io.err(`Failed to start the emulator: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  }
  let caDir: string | undefined;
  let caFile: string | undefined;
  if (emu.apiCaCert !== undefined) {
    try {
      if (cli.caOut === undefined) caDir = mkdtempSync(join(tmpdir(), 'remote-builder-emulator-'));
      caFile = cli.caOut ?? join(caDir as string, 'api-ca.pem');
      writeFileSync(caFile, emu.apiCaCert);
    } catch (e) {
      io.err(`Failed to write the API's CA certificate: ${e instanceof Error ? e.message : String(e)}`);
      await emu.close();
      return 1;
    }
  }
  io.out(`Remote-builder emulator listening on ${emu.url}`);
  io.out(`  API base URL: ${emu.url}  (endpoints under /api/v1, admin under /_emulator)`);
  if (caFile !== undefined) {
    const port = new URL(emu.url).port;
    io.out(`  HTTPS:        certificate for ${cli.httpsHostname}, https://${cli.httpsHostname}:${port}`);
    io.out(`  API CA:       ${caFile}  (clients: NODE_EXTRA_CA_CERTS=${caFile})`);
  }
  io.out(`  API key:      ${emu.apiKey}`);
  io.out(
    `  Profiles:     ${emu
      .profiles()
      .map(p => `${p.name} (${p.id}, ${p.architectures.join('+')}, ${p.size})`)
      .join(', ')}`
  );
  io.out(`  Backend:      ${describeBackends(opts)}`);
  io.out(
    `  Artifacts:    ACTIONS_RESULTS_URL=${emu.artifacts.resultsUrl}  (a job's ACTIONS_RUNTIME_TOKEN: POST /_artifacts/token there)`
  );
  io.out('Press Ctrl+C to stop.');
  await (stop ?? waitForSignal());
  await emu.close();
  if (caDir !== undefined) rmSync(caDir, {recursive: true, force: true});
  io.out(formatLedger(emu.ledger(), emu.totalCost()));
  return 0;
}

/** The backend line of the banner: which dockerd serves the builders (of each architecture, when split). */
export function describeBackends(opts: Pick<EmulatorOpts, 'dockerSocket' | 'dockerSocketByArch' | 'buildkit'>): string {
  const all = opts.dockerSocket ? `dockerd BuildKit at ${opts.dockerSocket}` : describeBuildkitApi(opts.buildkit);
  const byArch = Object.entries(opts.dockerSocketByArch ?? {}).map(([arch, socket]) => `${arch}: ${socket}`);
  return byArch.length === 0 ? all : `${byArch.join(', ')}; other builders: ${all}`;
}

function describeBuildkitApi(buildkit: EmulatorOpts['buildkit']): string {
  const version = buildkit?.version ?? DEFAULT_BUILDKIT_VERSION;
  switch (buildkit?.api ?? 'control') {
    case 'control':
      return `BuildKit ${version} Control API (Info, ListWorkers)`;
    case 'no-info':
      return `BuildKit ${version} Control API without Info (as BuildKit < 0.11)`;
    case 'preface-only':
      return 'HTTP/2 preface only (no gRPC call answered)';
  }
}

/** The ledger as printable text, one line per builder, then the totals. */
export function formatLedger(entries: LedgerEntry[], totalCost: number): string {
  const lines = ['Builder ledger:'];
  for (const e of entries) {
    const ready = e.readyAt !== undefined ? `ready +${e.readyAt - e.assignedAt} ms` : 'never ready';
    const end =
      e.reason === 'emulator-shutdown' ? 'LEFT ASSIGNED (closed at shutdown)' : `terminated: ${e.reason ?? '-'}`;
    lines.push(
      `  ${e.builderId}  ${e.profile}  ${e.size}  ${e.arch}  ${ready}  billed ${(e.billedMs / 1000).toFixed(1)} s` +
        `  $${e.cost.toFixed(6)}  ${end}`
    );
  }
  const left = entries.filter(e => e.reason === 'emulator-shutdown' || e.terminatedAt === undefined).length;
  lines.push(`  ${entries.length} builder(s), ${left} left assigned, total $${totalCost.toFixed(6)}`);
  return lines.join('\n');
}

function waitForSignal(): Promise<NodeJS.Signals> {
  return new Promise(resolve => {
    const on = (signal: NodeJS.Signals): void => {
      process.off('SIGINT', on);
      process.off('SIGTERM', on);
      resolve(signal);
    };
    process.on('SIGINT', on);
    process.on('SIGTERM', on);
  });
}

function isEntryPoint(): boolean {
  const script = process.argv[1];
  if (!script) return false;
  try {
    return import.meta.url === pathToFileURL(realpathSync(script)).href;
  } catch {
    return false;
  }
}

if (isEntryPoint()) {
  runCli(process.argv.slice(2)).then(exitAfterOutput, (e: unknown) => {
    console.error(e);
    exitAfterOutput(1);
  });
}
