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

/** Operating systems and architectures containerd knows, for one-part platforms ("arm64" means linux/arm64). */
const KNOWN_OS = new Set([
  'aix',
  'android',
  'darwin',
  'dragonfly',
  'freebsd',
  'hurd',
  'illumos',
  'ios',
  'js',
  'linux',
  'nacl',
  'netbsd',
  'openbsd',
  'plan9',
  'solaris',
  'windows',
  'zos'
]);
const KNOWN_ARCH = new Set([
  '386',
  'amd64',
  'amd64p32',
  'arm',
  'armbe',
  'arm64',
  'arm64be',
  'ppc64',
  'ppc64le',
  'loong64',
  'mips',
  'mipsle',
  'mips64',
  'mips64le',
  'mips64p32',
  'mips64p32le',
  'ppc',
  'riscv',
  'riscv64',
  's390',
  's390x',
  'sparc',
  'sparc64',
  'wasm',
  // The aliases buildx normalizes (x86_64, aarch64, …): one list with platformArch's.
  ...Object.keys(ARCH_ALIASES)
]);

/**
 * The first of `platforms` that is not a platform, or undefined. Read the way buildx parses `--platform`
 * (containerd platforms.Parse): `local`, or `os[/arch[/variant]]` with components of letters, digits, `_`
 * and `-`, a single component being a known OS or architecture. Stricter than containerd in one point: the
 * architecture must be one Go knows ("linux/amd64x" is refused), since no builder node can run another and
 * the mistake is found before anything is assigned rather than after.
 */
export function malformedPlatform(platforms: string[]): string | undefined {
  return platforms.find(p => {
    if (p === 'local') return false;
    const parts = p.split('/');
    if (parts.length > 3 || parts.some(c => !/^[A-Za-z0-9_-]+$/.test(c))) return true;
    const lower = parts.map(c => c.toLowerCase());
    if (lower.length === 1) return !KNOWN_OS.has(lower[0] as string) && !KNOWN_ARCH.has(lower[0] as string);
    return !KNOWN_ARCH.has(lower[1] as string);
  });
}
