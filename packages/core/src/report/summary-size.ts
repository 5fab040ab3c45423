/**
 * GitHub rejects a step summary over 1,024 KiB ("$GITHUB_STEP_SUMMARY upload aborted, supports content up to a
 * size of 1024k"): the step's block is kept under it, with room to spare for what another action of the same
 * step appends.
 */
export const SUMMARY_LIMIT_BYTES = 1024 * 1024;

/** What the block may use: the limit less 64 KiB of margin (headings, notes, another writer of the same step). */
export const SUMMARY_BUDGET_BYTES = SUMMARY_LIMIT_BYTES - 64 * 1024;

/** UTF-8 size of a text, as GitHub counts it. */
export function byteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** A long text kept to a size: the head that fits, and what was left out. */
export interface CutText {
  text: string;
  /** Bytes left out (0 when nothing was cut). */
  cutBytes: number;
  /** Whole or partial lines of `text` left out (not counting `alreadyCut`, whose lines are unknown). */
  cutLines: number;
}

/**
 * The head of `text` that fits in `maxBytes`, cut at the end of a line when one fits (else inside the first
 * line, never inside a UTF-8 sequence). `alreadyCut` counts bytes an earlier reader left out (a file read only
 * in part).
 */
export function cutText(text: string, maxBytes: number, alreadyCut = 0): CutText {
  const total = byteLength(text);
  if (total <= maxBytes) {
    return {text, cutBytes: alreadyCut, cutLines: 0};
  }
  const bytes = Buffer.from(text, 'utf8');
  let end = Math.max(0, maxBytes);
  // Back off continuation bytes (10xxxxxx) so the cut never splits a character.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  const lastNewline = bytes.lastIndexOf(0x0a, end);
  if (lastNewline > 0) end = lastNewline;
  const head = bytes.subarray(0, end).toString('utf8');
  const restFrom = bytes[end] === 0x0a ? end + 1 : end;
  return {
    text: head,
    cutBytes: total - end + alreadyCut,
    cutLines: restFrom >= total ? 0 : countLines(bytes, restFrom)
  };
}

/** Lines of `text` (from byte `from` of a buffer): newlines + 1, counted without splitting. */
export function countLines(text: string | Buffer, from = 0): number {
  let n = 1;
  for (let at = text.indexOf('\n', from); at >= 0; at = text.indexOf('\n', at + 1)) n++;
  return n;
}

/**
 * Shares `budget` bytes among texts of the given sizes, smallest first: a text that fits in its fair share keeps
 * all of it and leaves the rest to the longer ones (so one huge bake definition cannot crowd out a short
 * error). Returns each text's allowance, in the order given.
 */
export function shareBudget(sizes: readonly number[], budget: number): number[] {
  const order = sizes.map((size, i) => ({size, i})).sort((a, b) => a.size - b.size);
  const out = sizes.map(() => 0);
  let left = Math.max(0, budget);
  order.forEach(({size, i}, k) => {
    const share = Math.floor(left / (order.length - k));
    out[i] = Math.min(size, share);
    left -= out[i] as number;
  });
  return out;
}

/** "1.5 KiB", "2.25 MiB": a size for the notes. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  const units = ['KiB', 'MiB', 'GiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${Number(value.toFixed(2))} ${units[unit]}`;
}
