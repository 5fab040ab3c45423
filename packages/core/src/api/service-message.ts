/**
 * The service's own words in an error answer: `{"error": {"message": …}}` (the emulator's shape, with `code`), or
 * `{"message": …}`, `{"error": "…"}`, `{"error_description": …}`, `{"detail": …}`. The spec shows no error body
 * (§9), so any of these is read; undefined when the body is none of them (then an excerpt of it is shown instead).
 */
export function serviceMessage(body: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  const top = parsed as Record<string, unknown>;
  const inner = typeof top.error === 'object' && top.error !== null ? (top.error as Record<string, unknown>) : {};
  for (const candidate of [inner.message, top.message, top.error_description, top.detail, top.error]) {
    if (typeof candidate === 'string' && candidate.trim() !== '') return candidate.trim();
  }
  return undefined;
}
