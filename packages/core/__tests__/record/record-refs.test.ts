import {describe, expect, test} from '@jest/globals';
import {mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {refsFromFolder, refsFromMetadata, uniqueRefs} from '../../src/record/record-refs.js';

describe('refsFromMetadata', () => {
  test("build-push's ref, on the builder asked", () => {
    const meta = {'buildx.build.ref': 'rb/rb0/abcdefghij', 'containerimage.digest': 'sha256:0'};
    expect(refsFromMetadata(meta, 'rb')).toEqual([{builder: 'rb', node: 'rb0', ref: 'abcdefghij'}]);
    expect(refsFromMetadata(meta, 'other')).toEqual([]);
  });

  test("bake's refs, one per target; a malformed one is left out", () => {
    const meta = {
      app: {'buildx.build.ref': 'rb/rb0/aaaaaaaaaa'},
      db: {'buildx.build.ref': 'rb/rb1/bbbbbbbbbb'},
      bad: {'buildx.build.ref': 'rb/only-two'},
      'buildx.build.warnings': 'x'
    };
    expect(refsFromMetadata(meta, 'rb').map(r => r.ref)).toEqual(['aaaaaaaaaa', 'bbbbbbbbbb']);
  });
});

describe('refsFromFolder', () => {
  test("every node's refs since the step began, oldest first; older ones and stray files left out", () => {
    const dir = mkdtempSync(join(tmpdir(), 'refs-'));
    try {
      const at = (node: string, ref: string, s: number): void => {
        mkdirSync(join(dir, 'refs', 'rb', node), {recursive: true});
        writeFileSync(join(dir, 'refs', 'rb', node, ref), '{}');
        utimesSync(join(dir, 'refs', 'rb', node, ref), s, s);
      };
      at('rb0', 'newerrefnode0', 2000);
      at('rb1', 'newerrefnode0', 2001);
      at('rb0', 'firstrefxxxx', 1500);
      at('rb0', 'oldrefxxxxxx', 100);
      at('rb0', '.tmp-x', 2000);
      expect(refsFromFolder(dir, 'rb', 1000_000).map(r => `${r.node}/${r.ref}`)).toEqual([
        'rb0/firstrefxxxx',
        'rb0/newerrefnode0',
        'rb1/newerrefnode0'
      ]);
      expect(refsFromFolder(dir, 'absent', 0)).toEqual([]);
    } finally {
      rmSync(dir, {recursive: true, force: true});
    }
  });

  test('uniqueRefs keeps the first of each node/ref', () => {
    const r = {builder: 'rb', node: 'n', ref: 'x'};
    expect(uniqueRefs([r, {...r}, {...r, node: 'm'}])).toEqual([r, {...r, node: 'm'}]);
  });
});
