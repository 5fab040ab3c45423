import {parseArgs, type ParseArgsConfig} from 'node:util';
import {closest} from './suggest.js';
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

/** Every spelling of the global options, and --version (known before the command name). */
export const TOP_LEVEL_OPTIONS = [...knownOptions(GLOBAL_OPTIONS), '--version'];

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

/**
 * Parses the arguments of `command` strictly, with messages of our own (never node:util's): an unknown
 * option is named as typed, with the closest known one when there is one; a value may start with '-'
 * (`--timeout -1` reaches the number check, which names the valid range) unless it is one of the command's
 * own options (`--name --json` is a forgotten value). Throws a UsageError.
 */
export function parseCommandArgs(args: readonly string[], options: OptionSpecs, command: string): ParsedArgs {
  const parsed = parseArgs({args: [...args], options, allowPositionals: true, strict: false, tokens: true});
  const known = knownOptions(options);
  const terminator = parsed.tokens.find(t => t.kind === 'option-terminator');
  const positionals: string[] = [];
  const after: string[] = [];
  for (const t of parsed.tokens) {
    if (t.kind === 'option') checkOption(t, args[t.index] ?? t.rawName, options, known, command);
    if (t.kind !== 'positional') continue;
    if (terminator && t.index > terminator.index) after.push(t.value);
    else positionals.push(t.value);
  }
  const result: ParsedArgs = {values: parsed.values as OptionValues, positionals};
  if (terminator) result.afterTerminator = after;
  return result;
}

interface OptionToken {
  name: string;
  rawName: string;
  value?: string;
  inlineValue?: boolean;
}

/** Every spelling of the options: `--name` and `-n`. */
function knownOptions(options: OptionSpecs): string[] {
  return Object.entries(options).flatMap(([name, spec]) => [`--${name}`, ...(spec.short ? [`-${spec.short}`] : [])]);
}

function checkOption(t: OptionToken, typed: string, options: OptionSpecs, known: string[], command: string): void {
  const spec = Object.hasOwn(options, t.name) ? options[t.name] : undefined;
  if (!spec) {
    // A short option inside a group (-xvz) is named with the group it came from.
    const inGroup = typed !== t.rawName && !typed.startsWith(`${t.rawName}=`) ? ` (in "${typed}")` : '';
    const guess = t.rawName.startsWith('--')
      ? closest(
          t.rawName,
          known.filter(k => k.startsWith('--'))
        )
      : undefined;
    throw new UsageError(
      `unknown option "${t.rawName}"${inGroup} for "${command}"${guess ? `; did you mean ${guess}?` : ''}`,
      command
    );
  }
  const flag = `--${t.name}`;
  if (spec.type === 'boolean') {
    if (t.value !== undefined) throw new UsageError(`${flag} takes no value (got "${typed}")`, command);
    return;
  }
  if (t.value === undefined) throw new UsageError(`missing the value of ${flag}`, command);
  if (!t.inlineValue && (known.includes(t.value) || t.value === '--')) {
    const what = t.value === '--' ? 'ends the options' : 'is an option';
    throw new UsageError(
      `missing the value of ${flag} (the next argument, "${t.value}", ${what}; ` +
        `to pass it as the value, write ${flag}=${t.value})`,
      command
    );
  }
}

/**
 * The option written before the command name that its first unknown word is most likely the value of:
 * `--profle default builder run` reads "default" as the command when it is the value of a mistyped (or
 * misplaced) option. Else the first option before `--` that is not a global one (`--jsno profiles`).
 * `--x=value` carries its own value. Undefined when every option before the command is a global one.
 */
export function strayOption(args: readonly string[], unknownWord?: string): string | undefined {
  const end = args.indexOf('--');
  const before = end < 0 ? args : args.slice(0, end);
  const isStray = (a: string): boolean =>
    a.startsWith('-') && a !== '-' && !TOP_LEVEL_OPTIONS.includes(a.replace(/=.*$/, ''));
  if (unknownWord !== undefined) {
    const i = before.indexOf(unknownWord);
    const prev = i > 0 ? (before[i - 1] as string) : '';
    if (isStray(prev) && !prev.includes('=')) return prev;
  }
  const wordAt = unknownWord === undefined ? before.length : before.indexOf(unknownWord);
  return before.slice(0, wordAt < 0 ? before.length : wordAt).find(isStray);
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

/**
 * A whole number from `min` to `max` (digits only: no sign, fraction or exponent), e.g. for `--page`; the
 * message names the flag, the unit and the valid range.
 */
export function wholeNumber(
  value: string,
  flag: string,
  command: string,
  min = 0,
  max = Number.MAX_SAFE_INTEGER,
  unit = ''
): number {
  const text = value.trim();
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n) || n < min || n > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `from ${min} to ${max}`;
    throw new UsageError(
      `--${flag} must be a whole number${unit ? ` of ${unit}` : ''} ${range}, got "${value}"`,
      command
    );
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
