import {afterEach, beforeEach, describe, expect, test} from '@jest/globals';
import {mkdtemp, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {readRecordBundle} from '../../src/record/record-bundle.js';
import {entryFromRecord, recordFacts} from '../../src/record/record-facts.js';
import {writeFixture} from './dockerbuild-fixture.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'record-facts-'));
});
afterEach(async () => {
  await rm(dir, {recursive: true, force: true});
});

describe('entryFromRecord', () => {
  test('a failed build as BuildKit records it (protobuf timestamps as Go writes them): the facts inspect gives', () => {
    const record = {
      Ref: 'abcdefghij',
      FrontendAttrs: {target: 'release'},
      error: {code: 2, message: 'process "/bin/sh -c false" did not complete successfully: exit code: 1'},
      CreatedAt: {seconds: 1764410000, nanos: 250_000_000},
      CompletedAt: {seconds: 1764410002, nanos: 750_000_000},
      numCachedSteps: 1,
      numTotalSteps: 5,
      numCompletedSteps: 3,
      localState: {LocalPath: '/w/app', DockerfilePath: '/w/app/Dockerfile'},
      ExtraField: {anything: true}
    };
    expect(entryFromRecord(record, 'abcdefghij', 'rb0')).toEqual({
      ref: 'abcdefghij',
      node: 'rb0',
      name: 'app (release)',
      status: 'failed',
      durationMs: 2500,
      numCachedSteps: 1,
      numTotalSteps: 5,
      numCompletedSteps: 3,
      error: 'process "/bin/sh -c false" did not complete successfully: exit code: 1'
    });
  });

  // prettier-ignore
  test.each([
    [1, 'completed, zero steps left out by omitempty', {CreatedAt: {seconds: 10}, CompletedAt: {seconds: 11}},
      {status: 'completed', durationMs: 1000, numCachedSteps: 0, numTotalSteps: 0, numCompletedSteps: 0}],
    [2, 'cancelled: gRPC code 1, no error text', {CreatedAt: {seconds: 10}, CompletedAt: {seconds: 10, nanos: 5e6}, error: {code: 1, message: 'context canceled'}},
      {status: 'canceled', durationMs: 5}],
    [3, 'not completed: running, no duration', {CreatedAt: {seconds: 10}}, {status: 'running'}],
    [4, 'RFC 3339 times (older BuildKits)', {CreatedAt: '2026-11-29T10:00:00Z', CompletedAt: '2026-11-29T10:00:01.5Z'},
      {status: 'completed', durationMs: 1500}],
    [5, 'odd shapes are left out', {CreatedAt: 'yesterday', CompletedAt: [], numTotalSteps: -1, error: 'text'},
      {status: 'failed', numTotalSteps: 0}]
  ])('[%d] %s', (_n, _what, record, expected) => {
    const e = entryFromRecord(record as Record<string, unknown>, 'r');
    expect(e).toMatchObject(expected);
    if (!('durationMs' in expected)) expect(e.durationMs).toBeUndefined();
    if (e.status !== 'failed') expect(e.error).toBeUndefined();
  });
});

describe('recordFacts', () => {
  test('one entry per ref in the order asked, the first record of a ref two nodes recorded, a missing ref bare', async () => {
    const path = join(dir, 'a.dockerbuild');
    writeFixture(path, [
      {ref: 'bbbb', layers: ['b0'], record: {FrontendAttrs: {target: 'b'}, CompletedAt: {seconds: 1}}},
      {ref: 'aaaa', layers: ['a0'], record: {FrontendAttrs: {target: 'a0'}, CompletedAt: {seconds: 1}}},
      {ref: 'aaaa', layers: ['a1'], record: {FrontendAttrs: {target: 'a1'}, CompletedAt: {seconds: 1}}}
    ]);
    const nodes = new Map([
      ['aaaa', 'rb0,rb1'],
      ['bbbb', 'rb0'],
      ['cccc', 'rb0']
    ]);
    expect(recordFacts(await readRecordBundle(path), nodes)).toEqual([
      expect.objectContaining({ref: 'aaaa', node: 'rb0,rb1', name: 'a0', status: 'completed'}),
      expect.objectContaining({ref: 'bbbb', node: 'rb0', name: 'b', status: 'completed'}),
      {ref: 'cccc', node: 'rb0'}
    ]);
  });

  test('a file that is no record file throws, saying why', async () => {
    const path = join(dir, 'b.dockerbuild');
    await writeFile(path, 'not gzip');
    await expect(readRecordBundle(path)).rejects.toThrow('not gzip-compressed');
  });
});
