import {parseCsv} from './csv.js';

/** How a list input is split; the options of @docker/actions-toolkit `Util.getInputList`. */
export interface InputListOpts {
  /** Keep commas inside an item: only line breaks separate items (build-args, labels, secrets, …). */
  ignoreComma?: boolean;
  /** Comment character (e.g. '#'): the rest of the line is dropped. Off by default, as in build-push-action. */
  comment?: string;
  /** Only a comment character at the start of a line starts a comment (a '#' inside a value is kept). */
  commentNoInfix?: boolean;
  /** false: double quotes are ordinary characters (outputs, set); default: `"…"` quotes an item, `""` escapes. */
  quote?: false;
  /** false: items keep their leading and trailing whitespace (build-push v7.3.0's `secrets`); default: trimmed. */
  trimWhitespace?: false;
}

/**
 * Splits a list input exactly as docker's actions do (`Util.getList` of @docker/actions-toolkit 0.62):
 * each line is a CSV record; without ignoreComma every field is an item, with it the fields are joined
 * back with ','. A quoted item may span lines. Empty items are dropped, then every item is trimmed (unless
 * trimWhitespace is false).
 * https://github.com/docker/actions-toolkit/blob/v0.92.0/src/util.ts
 */
export function parseInputList(input: string, opts: InputListOpts = {}): string[] {
  if (input === '') return [];
  const records = parseCsv(input, {
    relaxQuotes: true,
    skipEmptyLines: true,
    comment: opts.comment || undefined,
    commentNoInfix: opts.comment ? (opts.commentNoInfix ?? false) : undefined,
    quote: opts.quote === false ? false : undefined
  });
  const items: string[] = [];
  for (const record of records) {
    if (record.length === 1) {
      const only = record[0] as string;
      items.push(...(opts.ignoreComma ? [only] : only.split(',')));
    } else if (!opts.ignoreComma) {
      items.push(...record);
    } else {
      items.push(record.join(','));
    }
  }
  // Filter before trim, as docker does: a blank line of spaces survives as ''.
  const kept = items.filter(item => item !== '');
  return opts.trimWhitespace === false ? kept : kept.map(item => item.trim());
}

/**
 * An input as the runner passed it, whitespace kept: @actions/core's `getInput(name, {trimWhitespace: false})`
 * reads INPUT_<NAME> from the environment. Falls back to the (trimmed) getInput when the environment does not
 * hold it (a fake ActionIO that serves inputs itself).
 */
export function untrimmedInput(io: {getInput(name: string): string; env: NodeJS.ProcessEnv}, name: string): string {
  return io.env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] ?? io.getInput(name);
}

/** docker's `Util.parseBool` (Go's strconv.ParseBool): 1 t T true TRUE True / 0 f F false FALSE False. */
export function parseDockerBool(value: string): boolean {
  if (['1', 't', 'T', 'true', 'TRUE', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'false', 'FALSE', 'False'].includes(value)) return false;
  throw new Error(`parseBool syntax error: ${value}`);
}
