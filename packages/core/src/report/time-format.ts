/**
 * A duration for people: "12.3 s" under a minute, then whole seconds: "2 min 5 s", "2 min", "1 h 3 min 20 s", "1 h 5 s".
 * Negative durations (clock steps) read as 0.
 */
export function formatDuration(ms: number): string {
  const safe = Number.isFinite(ms) && ms > 0 ? ms : 0;
  const tenths = Math.round(safe / 100);
  if (tenths < 600) return `${(tenths / 10).toFixed(1)} s`;
  const total = Math.round(safe / 1000);
  const h = Math.floor(total / 3600);
  const min = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const parts = [h > 0 ? `${h} h` : '', min > 0 ? `${min} min` : '', s > 0 ? `${s} s` : ''];
  return parts.filter(p => p !== '').join(' ');
}

/** A clock time in UTC, ISO style: "12:03:07Z". */
export function formatClock(epochMs: number): string {
  return `${new Date(epochMs).toISOString().slice(11, 19)}Z`;
}

/** A date and clock time in UTC: "2026-01-16 12:03:07Z". */
export function formatDateTime(epochMs: number): string {
  const iso = new Date(epochMs).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}Z`;
}
