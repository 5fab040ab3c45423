/** Where the CLI writes: anything with a `write(string)`, e.g. process.stdout or a test's collector. */
export interface TextSink {
  write(chunk: string): unknown;
}

/** Rows as aligned columns (two spaces apart, no trailing spaces); the first row is the header. */
export function formatTable(rows: string[][]): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, width(cell))));
  return rows
    .map(row =>
      row
        .map((cell, i) => (i === row.length - 1 ? cell : cell + ' '.repeat((widths[i] ?? 0) - width(cell))))
        .join('  ')
        .trimEnd()
    )
    .map(line => `${line}\n`)
    .join('');
}

/** One record as aligned `key  value` lines, nested objects flattened to dotted keys. */
export function formatRecord(record: Record<string, unknown>): string {
  const rows: string[][] = [];
  const walk = (value: unknown, key: string): void => {
    if (typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length > 0) {
      for (const [k, v] of Object.entries(value)) walk(v, key === '' ? k : `${key}.${k}`);
      return;
    }
    rows.push([key, cell(value, true)]);
  };
  walk(record, '');
  return formatTable(rows);
}

/**
 * A value as one table cell: lists joined by commas, objects as JSON. In tables (`inRecord` false) a missing
 * or empty value is '-', so columns stay easy to read and to split; in records an empty string is "".
 */
export function cell(value: unknown, inRecord = false): string {
  if (value === undefined) return inRecord ? '' : '-';
  if (value === null) return 'null';
  if (typeof value === 'string') return value === '' ? (inRecord ? '""' : '-') : oneLine(value);
  if (Array.isArray(value) && value.every(v => typeof v !== 'object' || v === null)) {
    if (value.length === 0) return inRecord ? '[]' : '-';
    return value.map(v => cell(v, true)).join(',');
  }
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** Pretty JSON with a trailing newline. */
export function formatJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

function oneLine(s: string): string {
  return s.replace(/\r?\n/g, '\\n');
}

function width(s: string): number {
  return [...s].length;
}
