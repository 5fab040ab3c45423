import {parseArgs, type ParseArgsConfig} from 'node:util';
import {UsageError} from './usage-error.js';

/** Options of a command, in node:util parseArgs form. */
export type OptionSpecs = NonNullable<ParseArgsConfig['options']>;
/** Parsed option values: strings for string options, booleans for flags. */
export type OptionValues = Record<string, string | boolean | undefined>;

/** Options every command accepts. */
export const GLOBAL_OPTIONS = {
  'api-url': {type: 'string'},
  'api-key': {type: 'string'},
  json: {type: 'boolean'},
  verbose: {type: 'boolean', short: 'v'},
  help: {type: 'boolean', short: 'h'}
} as const satisfies OptionSpecs;

/** Global options that take a value (skipped when looking for the command name). */
const GLOBAL_VALUE_FLAGS = new Set(['--api-url', '--api-key']);

/** The words naming the command (e.g. ['runners', 'list']) and the remaining arguments. */
export interface CommandLine {
  words: string[];
  rest: string[];
}

/**
 * Splits argv into the first `maxWords` positional words (the command name; global options may come before
 * it) and everything else, in order. Stops looking at `--`.
 */
export function splitCommand(argv: readonly string[], maxWords: number): CommandLine {
  const words: string[] = [];
  const rest: string[] = [];
  let i = 0;
  for (; i < argv.length && words.length < maxWords; i++) {
    const arg = argv[i] as string;
    if (arg === '--') break;
    if (arg.startsWith('-') && arg !== '-') {
      rest.push(arg);
      if (GLOBAL_VALUE_FLAGS.has(arg) && i + 1 < argv.length) rest.push(argv[++i] as string);
      continue;
    }
    words.push(arg);
  }
  return {words, rest: [...rest, ...argv.slice(i)]};
}

/** Parsed arguments of one command. */
export interface ParsedArgs {
  values: OptionValues;
  /** Positionals before `--`. */
  positionals: string[];
  /** Arguments after `--` (undefined when there was no `--`). */
  afterTerminator?: string[];
}

/** Parses the arguments of `command` strictly; unknown options and bad values throw a UsageError. */
export function parseCommandArgs(args: readonly string[], options: OptionSpecs, command: string): ParsedArgs {
  let parsed;
  try {
    parsed = parseArgs({args: [...args], options, allowPositionals: true, strict: true, tokens: true});
  } catch (e) {
    throw new UsageError((e as Error).message.replace(/\. To specify a positional argument.*$/s, ''), command);
  }
  const terminator = parsed.tokens.find(t => t.kind === 'option-terminator');
  const positionals: string[] = [];
  const after: string[] = [];
  for (const t of parsed.tokens) {
    if (t.kind !== 'positional') continue;
    if (terminator && t.index > terminator.index) after.push(t.value);
    else positionals.push(t.value);
  }
  const result: ParsedArgs = {values: parsed.values as OptionValues, positionals};
  if (terminator) result.afterTerminator = after;
  return result;
}

/** True when --help or -h appears before any `--`. */
export function wantsHelp(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  return (end < 0 ? args : args.slice(0, end)).some(a => a === '--help' || a === '-h');
}

/** A string option's value (undefined when absent). */
export function str(values: OptionValues, name: string): string | undefined {
  const v = values[name];
  return typeof v === 'string' ? v : undefined;
}

/** A required string option; `--x ''` counts as given. */
export function required(values: OptionValues, name: string, command: string): string {
  const v = str(values, name);
  if (v === undefined) throw new UsageError(`missing --${name}`, command);
  return v;
}

/** A comma-separated list (blanks dropped). */
export function list(value: string): string[] {
  return value
    .split(',')
    .map(s => s.trim())
    .filter(s => s !== '');
}

/** A whole number >= `min`. */
export function wholeNumber(value: string, flag: string, command: string, min = 0): number {
  const n = Number(value.trim());
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min) {
    throw new UsageError(`--${flag} must be a whole number >= ${min}, got "${value}"`, command);
  }
  return n;
}

/** A finite number >= 0. */
export function nonNegativeNumber(value: string, flag: string, command: string): number {
  const n = Number(value.trim());
  if (value.trim() === '' || !Number.isFinite(n) || n < 0) {
    throw new UsageError(`--${flag} must be a number >= 0, got "${value}"`, command);
  }
  return n;
}

/** Exactly `names.length` positional arguments. */
export function positionals(parsed: ParsedArgs, names: string[], command: string): string[] {
  const got = parsed.positionals;
  if (got.length < names.length) throw new UsageError(`missing ${names.slice(got.length).join(' ')}`, command);
  if (got.length > names.length) throw new UsageError(`unexpected argument "${got[names.length]}"`, command);
  for (const [i, v] of got.entries()) {
    if (v.trim() === '') throw new UsageError(`${names[i]} must not be empty`, command);
  }
  return got;
}
