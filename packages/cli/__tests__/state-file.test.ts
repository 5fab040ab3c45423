import {afterEach, expect, test} from '@jest/globals';
import {mkdtempSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {defaultStateDir, FileStateStore, listStateNames, stateFileOf} from '../src/state-file.js';

let dir = '';
afterEach(() => {
  if (dir) rmSync(dir, {recursive: true, force: true});
});

test.each<[number, NodeJS.ProcessEnv, string]>([
  [1, {XDG_STATE_HOME: '/x/state', HOME: '/home/u'}, '/x/state/remote-builder'],
  [2, {HOME: '/home/u'}, '/home/u/.local/state/remote-builder'],
  [3, {XDG_STATE_HOME: ' ', HOME: '/h'}, '/h/.local/state/remote-builder']
])('%d: defaultStateDir', (_n, env, expected) => {
  expect(defaultStateDir(env)).toBe(expected);
});

test('saves JSON values readably, reads them back, 0600, removes', () => {
  dir = mkdtempSync(join(tmpdir(), 'rb-state-'));
  let now = Date.parse('2026-01-02T03:04:05.000Z');
  const store = new FileStateStore(join(dir, 'sub', 'b.json'), {now: () => now});
  expect(store.exists()).toBe(false);
  expect(store.get('builder')).toBe('');
  expect(store.createdAt()).toBeUndefined();
  store.save('builder', '{"v":1,"builderIds":["a"]}');
  now += 60000;
  store.save('note', 'plain text');
  // The creation time is that of the first save.
  expect(JSON.parse(readFileSync(store.path, 'utf8'))).toEqual({
    builder: {v: 1, builderIds: ['a']},
    note: 'plain text',
    createdAt: '2026-01-02T03:04:05.000Z'
  });
  expect(store.createdAt()).toEqual(new Date('2026-01-02T03:04:05.000Z'));
  expect(store.get('builder')).toBe('{"v":1,"builderIds":["a"]}');
  expect(store.get('note')).toBe('plain text');
  expect(statSync(store.path).mode & 0o777).toBe(0o600);
  expect(listStateNames(join(dir, 'sub'))).toEqual(['b']);
  store.remove();
  expect(store.exists()).toBe(false);
  expect(listStateNames(join(dir, 'none'))).toEqual([]);
});

test('a state file without its creation time (an older CLI) is as old as its last change', () => {
  dir = mkdtempSync(join(tmpdir(), 'rb-state-'));
  const path = stateFileOf(dir, 'old');
  writeFileSync(path, '{"builder": {}}');
  expect(new FileStateStore(path).createdAt()).toEqual(statSync(path).mtime);
});

test('a corrupt file is an error naming it', () => {
  dir = mkdtempSync(join(tmpdir(), 'rb-state-'));
  const path = stateFileOf(dir, 'x');
  writeFileSync(path, '{nope');
  expect(() => new FileStateStore(path).get('builder')).toThrow(`${path} is not JSON`);
  writeFileSync(path, '[]');
  expect(() => new FileStateStore(path).get('builder')).toThrow(/not a state file/);
});

test('file-system errors name the path and what to do; remove under a file is a no-op', () => {
  dir = mkdtempSync(join(tmpdir(), 'rb-state-'));
  const file = join(dir, 'a-file');
  writeFileSync(file, '');
  const store = new FileStateStore(join(file, 'remote-builder', 'b.json'));
  expect(() => store.save('builder', '{}')).toThrow(
    `cannot create the folder ${join(file, 'remote-builder')}: a part of the path is a file, not a folder: ` +
      'move that file away, or use another path (ENOTDIR); set XDG_STATE_HOME, or pass --state-file and ' +
      '--cert-dir, to keep the state elsewhere'
  );
  expect(store.exists()).toBe(false);
  expect(() => store.remove()).not.toThrow();
  expect(() => listStateNames(file)).toThrow(`cannot list ${file}: a part of the path is a file, not a folder`);
});
