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
    .map(a => (a.includes('/') ? a : `linux/${ARCH_ALIASES[a.toLowerCase()] ?? a.toLowerCase()}`))
    .filter((p, i, all) => all.indexOf(p) === i);
}

/** Spellings of architectures that other tools use, mapped to the OCI names buildx expects. */
const ARCH_ALIASES: Record<string, string> = {x64: 'amd64', x86_64: 'amd64', aarch64: 'arm64'};

/** Union of platforms, first-seen order. */
export function unionPlatforms(lists: string[][]): string[] {
  return [...new Set(lists.flat())];
}
