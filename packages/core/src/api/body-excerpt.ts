/** Longest excerpt of a response body put into an error message. */
export const MAX_EXCERPT_CHARS = 300;

/** A PEM block, or its beginning when the body is cut off inside it. */
const PEM_BLOCK = /-----BEGIN [A-Z0-9 ]+-----[\s\S]*?(?:-----END [A-Z0-9 ]+-----|$)/g;

/**
 * The start of a response body, safe for an error message: PEM blocks and every secret replaced,
 * whitespace collapsed, at most `max` characters (an ellipsis marks a cut).
 */
export function bodyExcerpt(body: string, secrets: readonly string[] = [], max = MAX_EXCERPT_CHARS): string {
  let s = body.replace(PEM_BLOCK, '[redacted PEM]');
  for (const secret of secrets) {
    if (secret !== '') s = s.split(secret).join('***');
  }
  s = s.replace(/\s+/g, ' ').trim();
  return s.length > max ? `${s.slice(0, Math.max(0, max - 1))}…` : s;
}
