/**
 * Parsers for the runner's file commands, after actions/runner `SetEnvFileCommand` (the same format serves
 * GITHUB_OUTPUT, GITHUB_STATE and GITHUB_ENV) and `AddPathFileCommand`:
 * https://github.com/actions/runner/blob/main/src/Runner.Worker/FileCommandManager.cs
 */

/** Values parsed from a key/value command file, and the error that stopped parsing, if any. */
export interface KeyValueParse {
  values: Record<string, string>;
  /** Set when the file is malformed; the runner then fails the step and ignores the rest of the file. */
  error?: string;
}

/**
 * Parses `name=value` lines and `name<<DELIMITER` heredocs (value lines up to a line equal to DELIMITER).
 * Lines end at LF only, as on a Linux runner; empty lines are skipped; a later value replaces an earlier one.
 */
export function parseKeyValueFile(text: string): KeyValueParse {
  const values: Record<string, string> = {};
  const lines = text.split('\n');
  // A trailing LF leaves one empty string after the last line; the runner's ReadLine never yields it.
  if (lines.at(-1) === '') lines.pop();
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line === '') continue;
    const equals = line.indexOf('=');
    const heredoc = line.indexOf('<<');
    if (equals >= 0 && (heredoc < 0 || equals < heredoc)) {
      values[line.slice(0, equals)] = line.slice(equals + 1);
    } else if (heredoc >= 0) {
      const name = line.slice(0, heredoc);
      const delimiter = line.slice(heredoc + 2);
      if (name === '' || delimiter === '') {
        return {values, error: `Invalid format '${line}'. Name must not be empty and delimiter must not be empty`};
      }
      const end = lines.indexOf(delimiter, i + 1);
      if (end < 0) return {values, error: `Invalid value. Matching delimiter not found '${delimiter}'`};
      values[name] = lines.slice(i + 1, end).join('\n');
      i = end;
    } else {
      return {values, error: `Invalid format '${line}'`};
    }
  }
  return {values};
}

/** Parses a GITHUB_PATH file: one directory a line, in the order they were added, empty lines skipped. */
export function parsePathFile(text: string): string[] {
  return text.split('\n').filter(line => line !== '');
}
