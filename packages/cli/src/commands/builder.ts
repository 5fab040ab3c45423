import {isAbsolute, resolve} from 'node:path';
import {
  BUILDER_SIZES,
  MAX_TIMEOUT_MS,
  childEnv,
  parseBuilderSize,
  parseProfileNames,
  type PostCleanupResult,
  type RunRecord
} from '@remote-builder-actions/core';
import {list, positionals, str, wholeNumber, type OptionValues} from '../args.js';
import {
  BUILDER_NAME,
  bringDown,
  bringUp,
  defaultCertRoot,
  newBuilderName,
  type Session,
  type UpOptions
} from '../builder-session.js';
import {billingLine, isFakeDocker} from '../billing-line.js';
import type {Command, CommandGroup} from '../command.js';
import type {CommandContext} from '../context.js';
import {ExitCode, signalExitCode} from '../exit-codes.js';
import {ls} from './builder-ls.js';
import {FileStateStore, listStateNames, stateFileOf} from '../state-file.js';
import {UsageError} from '../usage-error.js';

/** Default --timeout of `builder up`: the configure action's 5 minutes (spec §4.6). */
export const UP_TIMEOUT_MS = 300000;
/** Default --timeout of `builder run`: the build actions' 10 minutes (spec §4.6). */
export const RUN_TIMEOUT_MS = 600000;
/** After forwarding a signal to the command of `builder run`, SIGKILL it this much later. */
export const KILL_AFTER_MS = 10000;

const UP_OPTIONS = {
  profile: {type: 'string'},
  timeout: {type: 'string'},
  platforms: {type: 'string'},
  name: {type: 'string'},
  'state-file': {type: 'string'},
  'cert-dir': {type: 'string'},
  'builder-size': {type: 'string'}
} as const;

const UP_HELP = `  --profile P[,P2]      builder profile (required); a comma list is tried in order
  --timeout MS          wait at most this many milliseconds (1 to 21600000) for the builders to be ready
  --platforms P1,P2     fail unless the builders run these platforms, e.g. linux/amd64,linux/arm64
  --name NAME           buildx builder name (default remote-builder-<random>)
  --state-file FILE     where to keep the state (default <state dir>/<name>.json)
  --cert-dir DIR        where to write the TLS certificates (default <state dir>/certs)
  --builder-size SIZE   the profile's size (web UI), e.g. 32x64: the line after teardown then shows the cost`;

const STATE_NOTE = `The state dir is $XDG_STATE_HOME/remote-builder, else ~/.local/state/remote-builder.`;

function upOptions(
  ctx: CommandContext,
  v: OptionValues,
  cmd: string,
  defaultTimeoutMs: number,
  use: boolean
): UpOptions {
  const profile = str(v, 'profile');
  if (profile === undefined) throw new UsageError('missing --profile', cmd);
  const name = str(v, 'name') ?? newBuilderName();
  if (!BUILDER_NAME.test(name)) {
    throw new UsageError(`--name "${name}" is not a builder name: use letters, digits, '-', '_' and '.'`, cmd);
  }
  // Read as the actions' platform guard reads them ("arm64", "linux/arm64/v8", "linux/x86_64"); their form is
  // checked with the other local checks, before anything is assigned.
  const platforms = list(str(v, 'platforms') ?? '');
  const timeout = str(v, 'timeout');
  const sizeText = str(v, 'builder-size');
  const size = sizeText === undefined ? undefined : parseBuilderSize(sizeText);
  if (sizeText !== undefined && size === undefined)
    throw new UsageError(`--builder-size "${sizeText}" is not a builder size: one of ${BUILDER_SIZES.join(', ')}`, cmd);
  return {
    size,
    profiles: parseProfileNames(profile, '--profile'),
    timeoutMs:
      timeout === undefined
        ? defaultTimeoutMs
        : wholeNumber(timeout, 'timeout', cmd, 1, MAX_TIMEOUT_MS, 'milliseconds'),
    platforms,
    name,
    use,
    statePath: absolute(ctx, v, 'state-file', cmd) ?? stateFileOf(ctx.stateDir(), name),
    certRoot: absolute(ctx, v, 'cert-dir', cmd) ?? defaultCertRoot(ctx)
  };
}

/** The path option `flag` made absolute (against the working directory); undefined when not given. */
function absolute(ctx: CommandContext, v: OptionValues, flag: string, cmd: string): string | undefined {
  const path = str(v, flag);
  if (path === undefined) return undefined;
  if (path.trim() === '') throw new UsageError(`--${flag} must not be empty`, cmd);
  return isAbsolute(path) ? path : resolve(ctx.deps.cwd ?? process.cwd(), path);
}

function describe(s: Session, use: boolean) {
  const b = s.builder;
  return {
    name: b.name,
    profile: b.profile,
    builderIds: b.builderIds,
    platforms: b.platforms,
    nodes: b.nodes.map(n => ({
      name: n.name,
      builderId: n.builderId,
      endpoint: n.endpoint,
      platforms: n.platforms,
      certs: n.certs
    })),
    certDir: b.certDir,
    stateFile: s.store.path,
    timeToReadyMs: b.timeToReadyMs,
    use
  };
}

const up: Command = {
  name: 'up',
  summary: 'assign a builder and register it with docker buildx',
  help: `Usage: remote-builder builder up --profile PROFILE [options]

Assigns builders from a builder profile, waits until they are ready, writes their TLS certificates and
creates a local buildx builder (remote driver) for them. Prints the builder name on stdout; progress
goes to stderr. The builders are billed until "remote-builder builder down" (or their idle time-out).
Ctrl-C while waiting tears down what was assigned.

Options:
${UP_HELP}
  --no-use              do not make it docker's default builder (use --builder NAME or BUILDX_BUILDER)
  (default --timeout ${UP_TIMEOUT_MS})

${STATE_NOTE}`,
  options: {...UP_OPTIONS, 'no-use': {type: 'boolean'}},
  async run(ctx, args) {
    const cmd = 'builder up';
    positionals(args, [], cmd);
    const use = args.values['no-use'] !== true;
    const session = await bringUp(ctx, upOptions(ctx, args.values, cmd, UP_TIMEOUT_MS, use));
    const b = session.builder;
    if (ctx.json) {
      ctx.outJson(describe(session, use));
    } else {
      ctx.logger.info(
        `Builder "${b.name}" is up: profile "${b.profile}", ${b.nodes.length} node${b.nodes.length === 1 ? '' : 's'}` +
          `${b.platforms.length > 0 ? `, ${b.platforms.join(', ')}` : ''}${use ? " (docker's default builder)" : ''}.`
      );
      ctx.logger.info(`Build with: docker buildx build --builder ${b.name} …`);
      ctx.logger.info(`Tear it down with: remote-builder builder down --name ${b.name}`);
      ctx.out(`${b.name}\n`);
    }
    return ExitCode.Ok;
  }
};

/** The state file `down` works on, or undefined when no builder is up. */
function downTarget(ctx: CommandContext, v: OptionValues, cmd: string): FileStateStore | undefined {
  const file = str(v, 'state-file');
  const name = str(v, 'name');
  if (file !== undefined && name !== undefined) throw new UsageError('give --name or --state-file, not both', cmd);
  if (file !== undefined) return new FileStateStore(absolute(ctx, v, 'state-file', cmd) as string);
  const dir = ctx.stateDir();
  if (name !== undefined) {
    if (!BUILDER_NAME.test(name)) throw new UsageError(`--name "${name}" is not a builder name`, cmd);
    return new FileStateStore(stateFileOf(dir, name));
  }
  const names = listStateNames(dir);
  if (names.length > 1) {
    throw new UsageError(`${names.length} builders are up (${names.join(', ')}): say which with --name`, cmd);
  }
  return names.length === 1 ? new FileStateStore(stateFileOf(dir, names[0] as string)) : undefined;
}

function reportDown(ctx: CommandContext, name: string, r: PostCleanupResult & {run?: RunRecord}): number {
  if (r.run && !ctx.json) ctx.logger.info(billingLine(r.run));
  if (ctx.json) {
    ctx.outJson({
      name,
      tornDown: r.teardown.tornDown,
      alreadyGone: r.teardown.alreadyGone,
      maybeBilled: r.maybeBilled
    });
  }
  if (r.maybeBilled.length > 0) {
    ctx.logger.error(
      `${r.maybeBilled.join(', ')} may still be billed; the state is kept: run "remote-builder builder down --name ${name}" again`
    );
    return ExitCode.Failure;
  }
  if (!ctx.json) ctx.out(`Builder "${name}" is down.\n`);
  return ExitCode.Ok;
}

const down: Command = {
  name: 'down',
  summary: 'remove the buildx builder, its certificates, and tear the builders down',
  help: `Usage: remote-builder builder down [--name NAME | --state-file FILE]

Removes the buildx builder and the certificates "builder up" made, and tears down every builder it
assigned (billing stops). Without --name, the only builder that is up, and nothing up is not an error;
a --name or --state-file that is not up exits 1 and lists the builders that are. Finishes even on
Ctrl-C. When a builder cannot be torn down the state is kept: run it again.

Options:
  --name NAME           the builder "builder up" printed
  --state-file FILE     the state file "builder up" was given

${STATE_NOTE}`,
  options: {name: {type: 'string'}, 'state-file': {type: 'string'}},
  async run(ctx, args) {
    const cmd = 'builder down';
    positionals(args, [], cmd);
    const store = downTarget(ctx, args.values, cmd);
    const name = str(args.values, 'name') ?? store?.path.replace(/^.*\//, '').replace(/\.json$/, '') ?? '';
    if (!store) {
      // `down` in a clean-up script after nothing was brought up: not an error.
      ctx.logger.info(`No builder is up (${ctx.stateDir()}).`);
      if (ctx.json) ctx.outJson({name: null, tornDown: [], alreadyGone: [], maybeBilled: []});
      return ExitCode.Ok;
    }
    if (!store.exists()) {
      // A name or file that was asked for: most likely a typo, so say what is up instead.
      const up = listStateNames(ctx.stateDir());
      const known = up.length > 0 ? `builders that are up: ${up.join(', ')}` : `no builder is up (${ctx.stateDir()})`;
      const what =
        str(args.values, 'name') !== undefined ? `no builder "${name}" is up` : `no state file ${store.path}`;
      ctx.logger.error(`${what}; ${known}`);
      return ExitCode.Failure;
    }
    const result = await bringDown(ctx, store, ctx.buildx());
    return reportDown(ctx, name, result);
  }
};

const run: Command = {
  name: 'run',
  summary: 'bring a builder up, run a command with it, always tear it down',
  help: `Usage: remote-builder builder run --profile PROFILE [options] -- COMMAND [ARGS...]

Brings a builder up (as "builder up --no-use"), runs COMMAND with BUILDX_BUILDER set to it, then always
brings it down, also when COMMAND fails or on Ctrl-C/SIGTERM (the signal is passed to COMMAND first;
it is killed ${KILL_AFTER_MS / 1000} s later if still running). Exits with COMMAND's exit code (128+n when killed by
signal n, 127 when it is not found, which is checked before anything is assigned, or cannot be started), or 1 when COMMAND succeeded but a builder may still be billed.

Example:
  remote-builder builder run --profile ci -- docker buildx build -t app:dev --load .

Options:
${UP_HELP}
  (default --timeout ${RUN_TIMEOUT_MS})

${STATE_NOTE}`,
  options: {...UP_OPTIONS},
  async run(ctx, args) {
    const cmd = 'builder run';
    if (args.positionals.length > 0) {
      throw new UsageError(
        `put the command after "--", e.g. builder run --profile P -- ${args.positionals.join(' ')}`,
        cmd
      );
    }
    const [command, ...commandArgs] = args.afterTerminator ?? [];
    if (command === undefined) throw new UsageError('missing the command to run after "--"', cmd);
    // A command that cannot be found fails here, before anything is assigned (exit 127: see report() in cli.ts).
    const session = await bringUp(ctx, {...upOptions(ctx, args.values, cmd, RUN_TIMEOUT_MS, false), command});
    let code: number | undefined;
    try {
      code = await runCommand(ctx, session.builder.name, command, commandArgs);
    } finally {
      ctx.logger.info(`==> Bringing builder "${session.builder.name}" down`);
      const result = await bringDown(ctx, session.store, session.buildx);
      if (result.run) ctx.logger.info(billingLine(result.run, {simulated: isFakeDocker(ctx.env)}));
      if (result.maybeBilled.length > 0) {
        ctx.logger.error(
          `${result.maybeBilled.join(', ')} may still be billed: run "remote-builder builder down --name ${session.builder.name}"`
        );
        if (code === ExitCode.Ok) code = ExitCode.Failure;
      }
    }
    return code ?? ExitCode.Failure;
  }
};

/** Runs the command with BUILDX_BUILDER set, forwarding signals; resolves with its exit code. */
async function runCommand(ctx: CommandContext, name: string, command: string, args: string[]): Promise<number> {
  if (ctx.signal.aborted) return signalExitCode(ctx.receivedSignal ?? 'SIGINT');
  ctx.logger.info(`==> Running ${[command, ...args].join(' ')} (BUILDX_BUILDER=${name})`);
  const child = ctx.spawner().start(command, args, {
    // The user's command needs the builder, not the API key (child-env.ts).
    env: childEnv(ctx.env, {BUILDX_BUILDER: name}),
    cwd: ctx.deps.cwd ?? process.cwd(),
    stdout: ctx.deps.stdout,
    stderr: ctx.deps.stderr,
    inherit: ctx.deps.inheritStdio ?? ctx.deps.stdout === process.stdout
  });
  let killTimer: NodeJS.Timeout | undefined;
  const stop = ctx.onSignal(signal => {
    ctx.logger.info(`Passing ${signal} to ${command}`);
    child.kill(signal);
    killTimer ??= setTimeout(() => {
      ctx.logger.warning(`${command} is still running: killing it`);
      child.kill('SIGKILL');
    }, ctx.deps.killAfterMs ?? KILL_AFTER_MS);
    killTimer.unref?.();
  });
  try {
    const exit = await child.exited;
    if (exit.error) {
      ctx.logger.error(`Cannot run "${command}": ${exit.error.message}`);
      return ExitCode.CommandNotFound;
    }
    if (exit.signal) {
      ctx.logger.info(`${command} was killed by ${exit.signal}`);
      return signalExitCode(exit.signal);
    }
    const code = exit.code ?? ExitCode.Failure;
    if (code !== 0) ctx.logger.info(`${command} exited with ${code}`);
    return code;
  } finally {
    stop();
    if (killTimer) clearTimeout(killTimer);
  }
}

/** `remote-builder builder …` */
export const builderGroup: CommandGroup = {
  name: 'builder',
  summary: 'bring remote builders up and down, run commands with them, list them',
  commands: [up, down, run, ls]
};
