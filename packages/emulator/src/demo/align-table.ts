/**
 * Rows as columns padded to their widest cell, two spaces apart, the first row a header over a rule of
 * `─`; lines carry no trailing spaces. Used for the summaries' tables and the ledger.
 */
export function alignTable(rows: string[][]): string[] {
  const columns = Math.max(...rows.map(r => r.length));
  const widths = Array.from({length: columns}, (_, i) => Math.max(...rows.map(r => (r[i] ?? '').length)));
  const render = (cells: string[]): string =>
    widths
      .map((w, i) => (cells[i] ?? '').padEnd(w))
      .join('  ')
      .trimEnd();
  const [head, ...rest] = rows;
  return [render(head ?? []), widths.map(w => '─'.repeat(w)).join('  '), ...rest.map(render)];
}
