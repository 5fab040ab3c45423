/** A platform as buildx's store keeps it (containerd's Platform as JSON: architecture, os, variant). */
export interface StorePlatform {
  architecture: string;
  os: string;
  variant?: string;
}

const PLAIN_ARCHITECTURES = new Set([
  '386',
  'amd64',
  'arm64',
  'loong64',
  'mips',
  'mips64',
  'mips64le',
  'mipsle',
  'ppc64',
  'ppc64le',
  'riscv64',
  's390x',
  'wasm'
]);
const VARIANTS: Record<string, string[]> = {amd64: ['v2', 'v3', 'v4'], arm: ['v5', 'v6', 'v7', 'v8']};

/**
 * A `--platform` entry as buildx stores it (platformutil.Parse: containerd's Parse, then Normalize), only for
 * the forms both leave as they are in every buildx from 0.13 on: `os/arch` or `os/arch/variant`, lower case,
 * a canonical architecture (not an alias such as x86_64 or aarch64), and no variant that normalisation
 * drops or adds (amd64/v1, arm64/v8, a bare arm that becomes arm/v7). Windows (whose OS version buildx 0.13
 * takes from the host) and macos (stored as darwin) are refused too. Undefined when refused.
 */
export function storePlatform(spec: string): StorePlatform | undefined {
  const parts = spec.split('/');
  const [os = '', architecture = '', variant] = parts;
  if (parts.length < 2 || parts.length > 3 || !/^[a-z][a-z0-9]*$/.test(os)) return undefined;
  if (os === 'windows' || os === 'macos') return undefined;
  if (variant === undefined) return PLAIN_ARCHITECTURES.has(architecture) ? {architecture, os} : undefined;
  return VARIANTS[architecture]?.includes(variant) ? {architecture, os, variant} : undefined;
}

/** The platform as `os/arch[/variant]`. */
export function formatPlatform(p: StorePlatform): string {
  return [p.os, p.architecture, p.variant].filter(Boolean).join('/');
}
