/**
 * Platforms of a builder from the `arch` its details report ("amd64", "arm64", "amd64,arm64", or
 * already "linux/arm64"). Returns [] when the service gave no arch (the field is "not shown" in the spec).
 */
export function platformsFromArch(arch: string | undefined): string[] {
  if (!arch) return [];
  return arch
    .split(/[\s,]+/)
    .map(a => a.trim())
    .filter(a => a !== '')
    .map(a => (a.includes('/') ? a : `linux/${a}`));
}

/** Union of platforms, first-seen order. */
export function unionPlatforms(lists: string[][]): string[] {
  return [...new Set(lists.flat())];
}
