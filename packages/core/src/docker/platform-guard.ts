const OS_NAMES = new Set(['linux', 'windows', 'darwin', 'freebsd', 'netbsd', 'openbsd', 'solaris', 'illumos']);
const ARCH_ALIASES: Record<string, string> = {
  x86_64: 'amd64',
  'x86-64': 'amd64',
  aarch64: 'arm64',
  armhf: 'arm',
  armel: 'arm',
  i386: '386',
  i686: '386'
};
/** Architectures a node of the key architecture runs natively besides its own. */
const ALSO_RUNS: Record<string, string[]> = {amd64: ['386']};

/**
 * The CPU architecture of a platform ("linux/arm64/v8" → "arm64", "amd64" → "amd64"); undefined for
 * values that name none ("local", "linux").
 */
export function platformArch(platform: string): string | undefined {
  const parts = platform
    .trim()
    .toLowerCase()
    .split('/')
    .filter(p => p !== '');
  let arch: string | undefined;
  if (parts.length === 1) arch = OS_NAMES.has(parts[0] as string) || parts[0] === 'local' ? undefined : parts[0];
  else arch = parts[1];
  return arch ? (ARCH_ALIASES[arch] ?? arch) : undefined;
}

/** The architectures a set of node platforms can build for. */
export function offeredArchitectures(platforms: string[]): Set<string> {
  const archs = new Set<string>();
  for (const p of platforms) {
    const arch = platformArch(p);
    if (!arch) continue;
    archs.add(arch);
    for (const extra of ALSO_RUNS[arch] ?? []) archs.add(extra);
  }
  return archs;
}

/**
 * Requested architectures that no node offers, in request order. Returns [] when nothing is known about
 * the nodes (`offered` empty): the caller then skips the check.
 */
export function missingArchitectures(requested: string[], offered: string[]): string[] {
  const have = offeredArchitectures(offered);
  if (have.size === 0) return [];
  const missing: string[] = [];
  for (const p of requested) {
    const arch = platformArch(p);
    if (arch && !have.has(arch) && !missing.includes(arch)) missing.push(arch);
  }
  return missing;
}
