/**
 * The SHA-256 digests of a release's `checksums.txt` (sha256sum output: `<hex>  name` or, binary mode,
 * `<hex> *name`), by file name, digests lower-cased. Lines that are not a digest and a name are skipped.
 */
export function parseChecksums(text: string): Map<string, string> {
  const sums = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const m = /^([0-9a-fA-F]{64})\s+\*?(\S.*?)\s*$/.exec(line);
    if (m) sums.set(m[2] as string, (m[1] as string).toLowerCase());
  }
  return sums;
}
