/** What to do about a failed file operation, by its errno code. */
const FIXES: Record<string, string> = {
  EACCES: 'permission denied: make it writable by you (chmod/chown), or use another path',
  EPERM: 'operation not permitted: make it writable by you (chmod/chown), or use another path',
  ENOSPC: 'no space left on the device: free some space, or use a path on another disk',
  EDQUOT: 'disk quota exceeded: free some space, or use a path on another disk',
  EROFS: 'the file system is read-only: use a path on a writable one',
  ENOTDIR: 'a part of the path is a file, not a folder: move that file away, or use another path',
  EEXIST: 'a file is in the way where a folder is needed: move it away, or use another path',
  EISDIR: 'it is a folder where a file is needed: move it away, or use another path',
  ENOENT: 'it does not exist: check the path',
  EMFILE: 'too many open files: close some programs, or raise the limit (ulimit -n)',
  ENAMETOOLONG: 'the path is too long: use a shorter one'
};

const VERBS: Record<string, string> = {
  mkdir: 'create the folder',
  open: 'open',
  write: 'write',
  rename: 'replace',
  unlink: 'remove',
  rmdir: 'remove',
  rm: 'remove',
  lstat: 'read',
  stat: 'read',
  read: 'read',
  scandir: 'list',
  chmod: 'set the permissions of',
  copyfile: 'copy to'
};

/** A Node file-system error: errno code, syscall and path (e.g. from mkdirSync). */
export interface FsErrnoError extends Error {
  code: string;
  syscall?: string;
  path?: string;
  dest?: string;
}

/** True for a Node file-system error that names its path. */
export function isFsError(e: unknown): e is FsErrnoError {
  // Not `instanceof Error`: errors of node:fs may come from another realm (a vm context, e.g. under jest).
  if (typeof e !== 'object' || e === null) return false;
  const err = e as Partial<FsErrnoError>;
  return typeof err.code === 'string' && typeof err.path === 'string' && err.code in FIXES;
}

/**
 * A file-system error as the user needs it: what could not be done to which path, why, and what to do, e.g.
 * `cannot create the folder /x/state: permission denied: make it writable by you (chmod/chown), or use
 * another path`. `where` adds how to pick another path (e.g. the flag or variable that sets it).
 */
export function describeFsError(e: FsErrnoError, where = ''): string {
  const verb = VERBS[e.syscall ?? ''] ?? 'use';
  const path = e.syscall === 'rename' && e.dest ? e.dest : e.path;
  const fix = FIXES[e.code] ?? e.message;
  return `cannot ${verb} ${path}: ${fix} (${e.code})${where ? `; ${where}` : ''}`;
}
