/**
 * Markdown helpers for the job summary (GitHub-flavoured markdown). Values that come from outside (ids,
 * profile names, error text) are escaped so they cannot open a link, a tag or a new table cell.
 */

/** Inline text: backslash-escapes markdown punctuation, keeps it on one line. */
export function mdText(s: string): string {
  return s.replace(/\r?\n/g, ' ').replace(/[\\`*_{}[\]<>()#+!|~]/g, c => `\\${c}`);
}

/** A table row from cells that are already markdown. */
export function mdRow(cells: readonly string[]): string {
  return `| ${cells.join(' | ')} |`;
}

/** A table: header, separator, rows (cells already markdown). */
export function mdTable(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  return [mdRow(header), mdRow(header.map(() => '---')), ...rows.map(mdRow)];
}

/**
 * A fenced code block that shows `lines` exactly: the fence is one backtick longer than the longest run
 * of backticks in the text (CommonMark: a fence closes only on a run at least as long), so error output
 * with backticks cannot end the block early. Terminal colour codes are removed.
 */
export function mdCodeBlock(lines: readonly string[], lang = 'text'): string[] {
  // eslint-disable-next-line no-control-regex
  const clean = lines.map(l => l.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '').replace(/\r$/, ''));
  const longest = Math.max(0, ...clean.flatMap(l => (l.match(/`+/g) ?? []).map(run => run.length)));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return [`${fence}${lang}`, ...clean, fence];
}
