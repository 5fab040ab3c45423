import {afterEach, beforeEach, describe, expect, test} from '@jest/globals';
import {existsSync, readFileSync, writeFileSync} from 'node:fs';
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {gzipSync} from 'node:zlib';
import {readDockerbuild} from '../../../emulator/src/testing/dockerbuild-file.js';
import {mergeRecordFiles} from '../../src/record/record-merge.js';
import {tarNames, writeFixture, type FixtureFault, type FixtureRecord} from './dockerbuild-fixture.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'record-merge-'));
});
afterEach(async () => {
  await rm(dir, {recursive: true, force: true});
});

/** An input: records written as buildx does, or raw bytes (a corrupt file). */
type Input = FixtureRecord[] | {raw: Buffer} | {records: FixtureRecord[]; fault: FixtureFault};

function write(name: string, input: Input): {path: string; label: string} {
  const path = join(dir, name);
  if (Array.isArray(input)) writeFixture(path, input);
  else if ('raw' in input) writeFileSync(path, input.raw);
  else writeFixture(path, input.records, input.fault);
  return {path, label: `builder "${name}"`};
}

describe('mergeRecordFiles', () => {
  const cases: {
    name: string;
    inputs: Input[];
    refs: string[];
    /** How many inputs are left out with a warning. */
    leftOut: number;
  }[] = [
    {name: 'one file of one record', inputs: [[{ref: 'aaaaaaaaref1'}]], refs: ['aaaaaaaaref1'], leftOut: 0},
    {
      name: 'two files of one record each: one index of both, in order',
      inputs: [[{ref: 'aaaaaaaaref1'}], [{ref: 'bbbbbbbbref2'}]],
      refs: ['aaaaaaaaref1', 'bbbbbbbbref2'],
      leftOut: 0
    },
    {
      name: 'a file of two records (bake) and a file of one',
      inputs: [[{ref: 'aaaaaaaaref1'}, {ref: 'bbbbbbbbref2'}], [{ref: 'ccccccccref3'}]],
      refs: ['aaaaaaaaref1', 'bbbbbbbbref2', 'ccccccccref3'],
      leftOut: 0
    },
    {
      name: 'the same blob in both files: stored once',
      inputs: [[{ref: 'aaaaaaaaref1', layers: ['shared log']}], [{ref: 'bbbbbbbbref2', layers: ['shared log']}]],
      refs: ['aaaaaaaaref1', 'bbbbbbbbref2'],
      leftOut: 0
    },
    {
      name: 'the same record in both files: listed once',
      inputs: [[{ref: 'aaaaaaaaref1'}], [{ref: 'aaaaaaaaref1'}]],
      refs: ['aaaaaaaaref1'],
      leftOut: 0
    },
    {
      name: 'a file that is not gzip between two good ones',
      inputs: [[{ref: 'aaaaaaaaref1'}], {raw: Buffer.from('record')}, [{ref: 'ccccccccref3'}]],
      refs: ['aaaaaaaaref1', 'ccccccccref3'],
      leftOut: 1
    },
    {
      name: 'a gzip file that is no tar archive',
      inputs: [{raw: gzipSync(Buffer.from('not a tar archive '.repeat(40)))}, [{ref: 'bbbbbbbbref2'}]],
      refs: ['bbbbbbbbref2'],
      leftOut: 1
    },
    {
      name: 'an empty file (an export cut short)',
      inputs: [[{ref: 'aaaaaaaaref1'}], {raw: Buffer.alloc(0)}],
      refs: ['aaaaaaaaref1'],
      leftOut: 1
    },
    {
      name: "a file whose record's layer is missing",
      inputs: [{records: [{ref: 'aaaaaaaaref1'}], fault: 'missing-layer'}, [{ref: 'bbbbbbbbref2'}]],
      refs: ['bbbbbbbbref2'],
      leftOut: 1
    },
    {
      name: 'a file whose blob does not match its digest',
      inputs: [[{ref: 'aaaaaaaaref1'}], {records: [{ref: 'bbbbbbbbref2'}], fault: 'tampered-layer'}],
      refs: ['aaaaaaaaref1'],
      leftOut: 1
    },
    {
      name: 'every file corrupt: nothing written',
      inputs: [{raw: Buffer.alloc(0)}, {raw: Buffer.from('x')}],
      refs: [],
      leftOut: 2
    }
  ];

  test.each(cases)('$name', async c => {
    const files = c.inputs.map((input, i) => write(`in${i}.dockerbuild`, input));
    const output = join(dir, 'out.dockerbuild');
    const merged = await mergeRecordFiles({files, output});
    expect(merged.warnings).toHaveLength(c.leftOut);
    expect(merged.merged).toHaveLength(c.inputs.length - c.leftOut);
    expect(merged.records).toBe(c.refs.length);
    if (c.refs.length === 0) {
      expect(existsSync(output)).toBe(false);
      return;
    }
    const read = readDockerbuild(output);
    expect(read.records.map(r => r['Ref'])).toEqual(c.refs);
    const names = tarNames(readFileSync(output));
    expect(names.slice(0, 2)).toEqual(['blobs/', 'blobs/sha256/']);
    expect(names.slice(-2)).toEqual(['index.json', 'oci-layout']);
    expect(names).toEqual([...names].sort());
    expect(new Set(names).size).toBe(names.length);
  });

  test('two files: index.json names one index whose manifests carry their refs, and every blob of both is kept', async () => {
    const a = join(dir, 'a.dockerbuild');
    const b = join(dir, 'b.dockerbuild');
    const blobsA = writeFixture(a, [{ref: 'aaaaaaaaref1', layers: ['shared', 'a only']}]);
    const blobsB = writeFixture(b, [{ref: 'bbbbbbbbref2', layers: ['shared']}]);
    const output = join(dir, 'out.dockerbuild');
    await mergeRecordFiles({files: [a, b].map(path => ({path, label: path})), output});
    const read = readDockerbuild(output);
    expect(read.index.manifests).toEqual([
      {
        mediaType: 'application/vnd.oci.image.index.v1+json',
        digest: expect.stringMatching(/^sha256:/),
        size: expect.any(Number)
      }
    ]);
    const [top] = read.index.manifests;
    const inner = JSON.parse(read.files.get(`blobs/sha256/${top?.digest.slice(7)}`)?.toString() ?? '{}') as {
      manifests: {annotations: Record<string, string>}[];
    };
    expect(inner.manifests.map(m => m.annotations)).toEqual([
      {'vnd.buildkit.history.reference': 'aaaaaaaaref1'},
      {'vnd.buildkit.history.reference': 'bbbbbbbbref2'}
    ]);
    const stored = [...read.files.keys()].filter(n => n.startsWith('blobs/sha256/')).map(n => `sha256:${n.slice(13)}`);
    // Both inputs' blobs (the shared layer once) and the new index.
    expect(stored.sort()).toEqual([...new Set([...blobsA, ...blobsB, top?.digest ?? ''])].sort());
  });

  test('a file of several records: its own index is replaced, not kept beside the new one', async () => {
    const a = join(dir, 'a.dockerbuild');
    const b = join(dir, 'b.dockerbuild');
    const blobsA = writeFixture(a, [{ref: 'aaaaaaaaref1'}, {ref: 'bbbbbbbbref2'}]);
    writeFixture(b, [{ref: 'ccccccccref3'}]);
    const output = join(dir, 'out.dockerbuild');
    await mergeRecordFiles({files: [a, b].map(path => ({path, label: path})), output});
    const stored = [...readDockerbuild(output).files.keys()].map(n => `sha256:${n.slice(13)}`);
    const indexOfA = blobsA.at(-1) ?? '';
    expect(stored).not.toContain(indexOfA);
  });

  test('a corrupt file is named in its warning with what is wrong with it', async () => {
    const good = write('good.dockerbuild', [{ref: 'aaaaaaaaref1'}]);
    const bad = write('bad.dockerbuild', {raw: Buffer.from('record')});
    const merged = await mergeRecordFiles({files: [bad, good], output: join(dir, 'out.dockerbuild')});
    expect(merged.warnings).toEqual([
      expect.stringMatching(
        /^the record of builder "bad\.dockerbuild" \(bad\.dockerbuild\) is left out of the record file: not gzip-compressed/
      )
    ]);
  });
});
