/** Summary statistics of a sample. */
export interface Stats {
  n: number;
  median: number;
  p95: number;
  min: number;
  max: number;
}

/** Nearest-rank percentile (p in 0..100) of a non-empty sample. */
export function percentile(sample: number[], p: number): number {
  if (sample.length === 0) throw new Error('percentile of an empty sample');
  const sorted = [...sample].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] as number;
}

export function stats(sample: number[]): Stats {
  return {
    n: sample.length,
    median: percentile(sample, 50),
    p95: percentile(sample, 95),
    min: Math.min(...sample),
    max: Math.max(...sample)
  };
}
