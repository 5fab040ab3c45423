/**
 * True when `version` (e.g. "0.13.1", "v0.13.1-desktop.1") is at least `min` ("0.12.0"). A version that is
 * a 7-hex git commit (a dev build of buildx) satisfies every gate, as in @docker/actions-toolkit.
 * An unparsable version satisfies none.
 */
export function versionAtLeast(version: string, min: string): boolean {
  const v = version.trim();
  if (/^[0-9a-f]{7}$/.test(v)) return true;
  const have = parseTriple(v);
  const want = parseTriple(min);
  if (!have || !want) return false;
  for (let i = 0; i < 3; i++) {
    if ((have[i] as number) !== (want[i] as number)) return (have[i] as number) > (want[i] as number);
  }
  return true;
}

function parseTriple(s: string): [number, number, number] | undefined {
  const m = /^v?(\d+)\.(\d+)\.(\d+)/.exec(s);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}
