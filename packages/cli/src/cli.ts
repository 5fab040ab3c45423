import {
  ApiError,
  CancelledError,
  CommandNotFoundError,
  errorMessage,
  InputError,
  PROJECT_VERSION
} from '@remote-builder-actions/core';
import {GLOBAL_OPTIONS, parseCommandArgs, splitCommand, strayOption, TOP_LEVEL_OPTIONS, wantsHelp} from './args.js';
import {GLOBAL_HELP, type Command, type CommandGroup} from './command.js';
import {builderGroup} from './commands/builder.js';
import {imagesGroup} from './commands/images.js';
import {profilesGroup} from './commands/profiles.js';
import {runnersGroup} from './commands/runners.js';
import {stacksGroup} from './commands/stacks.js';
import {CommandContext, type CliDeps} from './context.js';
import {ExitCode, signalExitCode} from './exit-codes.js';
import {describeFsError, isFsError} from './fs-errors.js';
import {STATE_WHERE} from './state-file.js';
import {closest} from './suggest.js';
import {ERROR_PREFIX} from './terminal-logger.js';
import {UsageError} from './usage-error.js';

/** Every command group, in help order. */
export const COMMAND_GROUPS: readonly CommandGroup[] = [
  builderGroup,
  profilesGroup,
  runnersGroup,
  imagesGroup,
  stacksGroup
];

const EXIT_CODES_HELP = `Exit codes:
  0    done
  1    failed (service, docker, network or file system), a builder may still be billed, or
       "builder down --name" names no builder that is up
  2    bad command line or bad input, refused before anything was sent
  130  interrupted by SIGINT (Ctrl-C), 143 terminated by SIGTERM; assigned builders are torn down first
  "builder run" exits with its command's exit code.`;

/** The top-level help. */
export function topHelp(): string {
  const lines = COMMAND_GROUPS.flatMap(g => g.commands.map(c => [`${g.name} ${c.name}`, c.summary]));
  const width = Math.max(...lines.map(([n]) => (n as string).length));
  return `Usage: remote-builder <command> [options]

Builds container images on remote BuildKit builders from the remote-builder service, and manages its
runners, runner images and stacks.

Commands:
${lines.map(([n, s]) => `  ${(n as string).padEnd(width)}  ${s}`).join('\n')}

${GLOBAL_HELP}
  --version          print the version

Environment:
  REMOTE_BUILDER_API_URL   service base URL (https; http only to localhost)
  REMOTE_BUILDER_API_KEY   API key; runners, images and stacks need its "ci" and "cache" scopes
  XDG_STATE_HOME           builder state and certificates go to $XDG_STATE_HOME/remote-builder
                           (default ~/.local/state/remote-builder)

${EXIT_CODES_HELP}

Run "remote-builder <command> --help" for the options of a command.`;
}

function groupHelp(g: CommandGroup): string {
  const width = Math.max(...g.commands.map(c => c.name.length));
  return `Usage: remote-builder ${g.name} <command> [options]

${g.summary.charAt(0).toUpperCase()}${g.summary.slice(1)}.

Commands:
${g.commands.map(c => `  ${c.name.padEnd(width)}  ${c.summary}`).join('\n')}

Run "remote-builder ${g.name} <command> --help" for the options of a command.`;
}

function commandHelp(c: Command): string {
  return `${c.help}\n\n${GLOBAL_HELP}\n`;
}

/**
 * Runs the CLI on `argv` (without node and the script) and resolves with the exit code; see ExitCode.
 * Never throws and never exits the process: main.ts does. SIGINT/SIGTERM from `deps.signals` cancel the
 * command, which tears down whatever it assigned before it resolves.
 */
export async function runCli(argv: readonly string[], deps: CliDeps): Promise<number> {
  const {words, rest} = splitCommand(argv, 2);
  if (words[0] === 'help') return runCli([...argv.filter(a => a !== 'help'), '--help'], deps);
  const [groupName, commandName] = words;
  const write = (text: string, to: 'stdout' | 'stderr' = 'stdout'): void => void deps[to].write(`${text}\n`);

  if (groupName === undefined) {
    if (rest.includes('--version')) {
      write(`remote-builder ${PROJECT_VERSION}`);
      return ExitCode.Ok;
    }
    if (wantsHelp(rest)) {
      write(topHelp());
      return ExitCode.Ok;
    }
    const stray = strayOption(rest);
    if (stray !== undefined) return usageFailure(deps, strayOptionError(stray));
    write(topHelp(), 'stderr');
    return ExitCode.Usage;
  }
  const group = COMMAND_GROUPS.find(g => g.name === groupName);
  if (!group) {
    // `--profle default builder run`: "default" is the value of a mistyped option, not a command.
    const stray = strayOption(argv, groupName);
    if (stray !== undefined) return usageFailure(deps, strayOptionError(stray));
    const guess = closest(
      groupName,
      COMMAND_GROUPS.map(g => g.name)
    );
    return usageFailure(
      deps,
      new UsageError(`unknown command "${groupName}"${guess ? `; did you mean ${guess}?` : ''}`)
    );
  }
  if (commandName === undefined) {
    if (wantsHelp(rest)) {
      write(groupHelp(group));
      return ExitCode.Ok;
    }
    write(groupHelp(group), 'stderr');
    return ExitCode.Usage;
  }
  const command = group.commands.find(c => c.name === commandName);
  if (!command) {
    const stray = strayOption(argv, commandName);
    if (stray !== undefined) return usageFailure(deps, strayOptionError(stray, group.name));
    const guess = closest(
      commandName,
      group.commands.map(c => c.name)
    );
    const hint = guess ? `; did you mean "${group.name} ${guess}"?` : '';
    return usageFailure(deps, new UsageError(`unknown command "${groupName} ${commandName}"${hint}`, group.name));
  }
  const path = `${group.name} ${command.name}`;
  if (wantsHelp(rest)) {
    deps.stdout.write(commandHelp(command));
    return ExitCode.Ok;
  }

  let parsed;
  try {
    parsed = parseCommandArgs(rest, {...GLOBAL_OPTIONS, ...command.options}, path);
  } catch (e) {
    return usageFailure(deps, e as UsageError);
  }

  const controller = new AbortController();
  const ctx = new CommandContext(deps, parsed.values, controller.signal, {coreWording: group.name === 'builder'});
  const onSignal = (signal: NodeJS.Signals): void => {
    if (!controller.signal.aborted) {
      ctx.logger.info(`Received ${signal}: stopping; assigned builders are torn down first`);
      controller.abort(new CancelledError(`Cancelled by ${signal}`));
    } else {
      ctx.logger.info(`Received ${signal} again: still cleaning up so nothing stays billed`);
    }
    ctx.notifySignal(signal);
  };
  const signals = deps.signals ?? process;
  signals.on('SIGINT', onSignal);
  signals.on('SIGTERM', onSignal);
  try {
    return await command.run(ctx, parsed);
  } catch (e) {
    return report(ctx, e, path);
  } finally {
    signals.off('SIGINT', onSignal);
    signals.off('SIGTERM', onSignal);
    ctx.close();
  }
}

/** The commands (`builder up`, …) that take the long option `name`. */
function commandsWith(name: string): string[] {
  const key = name.replace(/^--/, '');
  return COMMAND_GROUPS.flatMap(g =>
    g.commands.filter(c => name.startsWith('--') && Object.hasOwn(c.options, key)).map(c => `"${g.name} ${c.name}"`)
  );
}

/**
 * The error for an option before the command name that is not a global one: a command's option (it goes after
 * the command's name), or a mistyped one, with the closest option of any command when there is one.
 */
function strayOptionError(typed: string, helpOf?: string): UsageError {
  const name = typed.replace(/=.*$/, '');
  const owners = commandsWith(name);
  if (owners.length > 0) {
    return new UsageError(`${name} is an option of ${owners.join(', ')}: put it after the command's name`, helpOf);
  }
  const commandOptions = COMMAND_GROUPS.flatMap(g => g.commands.flatMap(c => Object.keys(c.options)));
  const candidates = [...new Set([...TOP_LEVEL_OPTIONS, ...commandOptions.map(o => `--${o}`)])];
  const guess = name.startsWith('--') ? closest(name, candidates) : undefined;
  if (guess === undefined) return new UsageError(`unknown option "${name}"`, helpOf);
  const of = commandsWith(guess);
  const where = of.length > 0 && !TOP_LEVEL_OPTIONS.includes(guess) ? ` (an option of ${of.join(', ')})` : '';
  return new UsageError(`unknown option "${name}"; did you mean ${guess}${where}?`, helpOf);
}

function usageFailure(deps: CliDeps, e: UsageError): number {
  const at = e.command ? `remote-builder ${e.command}` : 'remote-builder';
  deps.stderr.write(`${ERROR_PREFIX}${e.message}\nRun "${at} --help" for usage.\n`);
  return ExitCode.Usage;
}

/** Prints a failure and maps it to an exit code. */
function report(ctx: CommandContext, e: unknown, path: string): number {
  if (e instanceof UsageError) return usageFailure(ctx.deps, e.command ? e : new UsageError(e.message, path));
  if (e instanceof InputError) {
    ctx.logger.error(`${e.input}: ${e.message.slice(`Input "${e.input}": `.length)}`);
    return ExitCode.Usage;
  }
  // `builder run`'s command was not found (before anything was assigned): the shell's exit code for that.
  if (e instanceof CommandNotFoundError) {
    ctx.logger.error(e.message);
    return ExitCode.CommandNotFound;
  }
  if (e instanceof CancelledError || ctx.signal.aborted) {
    ctx.logger.error(errorMessage(e));
    return signalExitCode(ctx.receivedSignal ?? 'SIGINT');
  }
  if (e instanceof ApiError) {
    ctx.logger.error(e.message);
    return ExitCode.Failure;
  }
  if (isFsError(e)) {
    ctx.logger.error(describeFsError(e, path.startsWith('builder ') ? STATE_WHERE : ''));
    return ExitCode.Failure;
  }
  ctx.logger.error(errorMessage(e));
  return ExitCode.Failure;
}
