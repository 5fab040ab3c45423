import {createHash} from 'node:crypto';
import {homedir} from 'node:os';
import path from 'node:path';

/** The variable that names a buildx mirror (core's Env.BuildxReleasesUrl). */
export const BUILDX_RELEASES_URL_ENV = 'REMOTE_BUILDER_BUILDX_RELEASES_URL';

/** The harness's tool caches: `$XDG_CACHE_HOME` (else `~/.cache`) `/remote-builder-actions/harness-tool-cache`. */
export function defaultToolCacheRoot(env: Readonly<Record<string, string | undefined>> = process.env): string {
  return path.join(
    env.XDG_CACHE_HOME || path.join(homedir(), '.cache'),
    'remote-builder-actions',
    'harness-tool-cache'
  );
}

/**
 * RUNNER_TOOL_CACHE for a step whose buildx comes from `releasesUrl` (REMOTE_BUILDER_BUILDX_RELEASES_URL; undefined or
 * empty: GitHub): one folder per source under `root`, so a buildx downloaded from one mirror is never reused when a
 * later run names another. `github` for GitHub, else `mirror-<host>-<12 hex digits of the URL's sha256>`.
 */
export function toolCacheDir(root: string, releasesUrl: string | undefined): string {
  const url = releasesUrl?.trim().replace(/\/+$/, '') ?? '';
  if (url === '') return path.join(root, 'github');
  let host = 'url';
  try {
    host = new URL(url).host.replace(/[^a-z0-9.-]/gi, '_') || 'url';
  } catch {
    // Not a URL: core refuses it with its own message; the folder only has to differ.
  }
  return path.join(root, `mirror-${host}-${createHash('sha256').update(url).digest('hex').slice(0, 12)}`);
}
