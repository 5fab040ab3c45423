/**
 * The candidate closest to `typed` (a mistyped option or command), when it is close enough to be what was
 * meant: at most 2 edits away (1 for words of up to 4 letters, dashes not counted), or `typed` is a prefix
 * of exactly one candidate. Undefined otherwise, so no wild guesses are printed.
 */
export function closest(typed: string, candidates: readonly string[]): string | undefined {
  const limit = typed.replace(/^-+/, '').length <= 4 ? 1 : 2;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = editDistance(typed, c);
    if (d < bestDistance) [best, bestDistance] = [c, d];
  }
  if (best !== undefined && bestDistance <= limit) return best;
  const prefixed = candidates.filter(c => c.startsWith(typed));
  return prefixed.length === 1 && typed.replace(/^-+/, '').length >= 3 ? prefixed[0] : undefined;
}

/** Levenshtein distance with adjacent transpositions counted as one edit ("--jsno" → "--json"). */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({length: a.length + 1}, (_, i) =>
    Array.from({length: b.length + 1}, (_, j) => (i === 0 ? j : j === 0 ? i : 0))
  );
  const at = (i: number, j: number): number => rows[i]?.[j] ?? Infinity;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, at(i - 2, j - 2) + 1);
      (rows[i] as number[])[j] = d;
    }
  }
  return at(a.length, b.length);
}
