import {expect, test} from '@jest/globals';
import {mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {describeFsError, isFsError} from '../src/fs-errors.js';

/** The error a real file operation throws. */
function thrownBy(op: () => unknown): unknown {
  try {
    op();
  } catch (e) {
    return e;
  }
  throw new Error('expected the operation to fail');
}

test('real errors of mkdir and write: what, which path, why, what to do', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rb-fs-'));
  try {
    const file = join(dir, 'file');
    writeFileSync(file, '');
    const eexist = thrownBy(() => mkdirSync(file));
    expect(isFsError(eexist)).toBe(true);
    if (!isFsError(eexist)) throw new Error('not an fs error');
    expect(describeFsError(eexist)).toBe(
      `cannot create the folder ${file}: a file is in the way where a folder is needed: move it away, or use another path (EEXIST)`
    );
    const enotdir = thrownBy(() => writeFileSync(join(file, 'x.json'), '{}'));
    if (!isFsError(enotdir)) throw new Error('not an fs error');
    expect(describeFsError(enotdir, 'use --state-file')).toBe(
      `cannot open ${join(file, 'x.json')}: a part of the path is a file, not a folder: move that file away, or use another path (ENOTDIR); use --state-file`
    );
  } finally {
    rmSync(dir, {recursive: true, force: true});
  }
});

test('EACCES and ENOSPC (built as Node builds them: root here cannot be refused a write)', () => {
  const eacces = Object.assign(new Error("EACCES: permission denied, mkdir '/s'"), {
    code: 'EACCES',
    syscall: 'mkdir',
    path: '/s'
  });
  expect(describeFsError(eacces)).toBe(
    'cannot create the folder /s: permission denied: make it writable by you (chmod/chown), or use another path (EACCES)'
  );
  const enospc = Object.assign(new Error('ENOSPC'), {
    code: 'ENOSPC',
    syscall: 'rename',
    path: '/s/a.tmp',
    dest: '/s/a'
  });
  expect(describeFsError(enospc)).toBe(
    'cannot replace /s/a: no space left on the device: free some space, or use a path on another disk (ENOSPC)'
  );
  expect(isFsError(new Error('plain'))).toBe(false);
  expect(isFsError(Object.assign(new Error('no path'), {code: 'EACCES'}))).toBe(false);
});
