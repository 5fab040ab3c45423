// The step's one record file from several builder sets (issue 28 §1), on a real BuildKit: two builds exported
// apart, as a retry on new builders exports them, merged by the core's mergeRecordFiles, hold what buildx's
// own export of both refs holds: the same records, trace, logs and results, blob for blob.
import {afterAll, beforeAll, describe, expect, test} from '@jest/globals';
import {randomBytes} from 'node:crypto';
import {readFileSync} from 'node:fs';
import {join} from 'node:path';
import {mergeRecordFiles} from '../../core/src/record/record-merge.js';
import {readDockerbuild} from '../src/testing/dockerbuild-file.js';
import {requireE2eEnv, type E2eEnv, type Workspace} from './e2e-env.js';

let env: E2eEnv;
let ws: Workspace;

beforeAll(async () => {
  env = await requireE2eEnv();
  ws = env.workspace('record-merge');
});

afterAll(() => ws?.cleanup());

/** A new build on the engine's own builder; returns its history ref. */
async function build(name: string): Promise<string> {
  const ctx = ws.context(name, {run: `echo ${randomBytes(8).toString('hex')} > /built.txt`});
  const meta = join(ws.dir, `${name}.json`);
  await ws.dockerOk(['buildx', 'build', '--metadata-file', meta, ctx.dir]);
  const value = (JSON.parse(readFileSync(meta, 'utf8')) as Record<string, string>)['buildx.build.ref'] ?? '';
  return value.split('/')[2] ?? '';
}

describe('the record file of a step built on two builder sets (real BuildKit)', () => {
  test('two exports merged hold what one export of both refs holds', async () => {
    const first = await build('merge-a');
    const second = await build('merge-b');
    if (!env.buildxAtLeast('0.23.0')) {
      // No history command before buildx 0.23: the build actions say so and export nothing.
      const res = await ws.docker(['buildx', 'history', 'export', '--output', join(ws.dir, 'x'), first]);
      expect(res.code).not.toBe(0);
      console.log(`record merge: buildx ${env.state.buildxVersion} has no history export`);
      return;
    }
    const finalize = env.buildxAtLeast('0.24.0') ? ['--finalize'] : [];
    const out = (n: string): string => join(ws.dir, `${n}.dockerbuild`);
    await ws.dockerOk(['buildx', 'history', 'export', ...finalize, '--output', out('a'), first]);
    await ws.dockerOk(['buildx', 'history', 'export', ...finalize, '--output', out('b'), second]);
    await ws.dockerOk(['buildx', 'history', 'export', ...finalize, '--output', out('both'), first, second]);
    const merged = await mergeRecordFiles({
      files: [
        {path: out('a'), label: 'a'},
        {path: out('b'), label: 'b'}
      ],
      output: out('merged')
    });
    expect(merged).toEqual({merged: [out('a'), out('b')], records: 2, warnings: []});
    const m = readDockerbuild(out('merged'));
    const e = readDockerbuild(out('both'));
    expect(m.records.map(r => r['Ref'])).toEqual([first, second]);
    expect(m.records).toEqual(e.records);
    expect([...m.files.keys()].sort()).toEqual([...e.files.keys()].sort());
    for (const [name, data] of e.files) expect(m.files.get(name)?.equals(data)).toBe(true);
    // Each record keeps its trace, logs and results: every layer of its manifest is in the file.
    for (const d of m.index.manifests) expect(m.files.has(`blobs/sha256/${d.digest.slice(7)}`)).toBe(true);
    console.log(
      `record merge: ${m.files.size} files, ${readFileSync(out('merged')).length} bytes merged ` +
        `(buildx's own export of both: ${readFileSync(out('both')).length} bytes)`
    );
  });
});
