import type {OptionSpecs, ParsedArgs} from './args.js';
import type {CommandContext} from './context.js';

/** One command, e.g. `runners list`. */
export interface Command {
  name: string;
  /** One line for the group's help. */
  summary: string;
  /** The help text: usage line, description, options (the global options are appended). */
  help: string;
  options: OptionSpecs;
  /** Runs the command; resolves with the exit code. Throws UsageError, InputError, ApiError, … */
  run(ctx: CommandContext, args: ParsedArgs): Promise<number>;
}

/** A group of commands, e.g. `runners`. */
export interface CommandGroup {
  name: string;
  summary: string;
  commands: Command[];
}

/** Help lines of the options every command takes. */
export const GLOBAL_HELP = `Global options:
  --api-url URL      service base URL (default: $REMOTE_BUILDER_API_URL)
  --api-key KEY      API key (default: $REMOTE_BUILDER_API_KEY; prefer the variable: flags show up in ps)
  --json             print results as JSON, for scripts
  -v, --verbose      print debug lines (API requests, docker calls) on stderr
  -h, --help         show help`;
