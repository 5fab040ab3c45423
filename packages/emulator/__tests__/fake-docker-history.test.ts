// The fake docker's build history (fake-docker/build-history.mjs) behaves as the buildx version it plays: the
// refs a build leaves (metadata, refs folder, every node that builds), `history inspect --format json`, and
// `history export` (unknown below 0.23, no --finalize below 0.24, one node's record per ref below 0.33).
import {afterEach, beforeEach, describe, expect, test} from '@jest/globals';
import {mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {dirname, join, resolve} from 'node:path';
import {fileURLToPath} from 'node:url';
import {NodeExec, type ExecResult} from '@remote-builder-actions/core';
import {gunzipSync} from 'node:zlib';
import {mergeRecordFiles} from '../../core/src/record/record-merge.js';
import {readDockerbuild} from '../src/testing/dockerbuild-file.js';

const DOCKER = resolve(dirname(fileURLToPath(import.meta.url)), '../fake-docker/docker');

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'fake-docker-history-'));
  // The build context: the fake docker reads its Dockerfile, as BuildKit does.
  writeFileSync(join(dir, 'Dockerfile'), 'FROM alpine:3.20\nWORKDIR /src\nCOPY . .\nRUN ./build.sh\n');
});
afterEach(() => rmSync(dir, {recursive: true, force: true}));

function docker(version: string, args: string[], env: Record<string, string> = {}): Promise<ExecResult> {
  return new NodeExec().run(DOCKER, args, {
    silent: true,
    cwd: dir,
    env: {
      FAKE_DOCKER_DIR: join(dir, 'docker'),
      BUILDX_CONFIG: join(dir, 'buildx'),
      FAKE_DOCKER_BUILDX_VERSION: version,
      ...env
    }
  });
}

/** Builder rb: node n0 (amd64) and n1 (arm64). */
async function twoNodes(): Promise<void> {
  for (const args of [
    [
      'buildx',
      'create',
      '--name',
      'rb',
      '--driver',
      'remote',
      '--node',
      'n0',
      '--platform',
      'linux/amd64',
      'tcp://10.0.0.1:1234'
    ],
    [
      'buildx',
      'create',
      '--name',
      'rb',
      '--append',
      '--driver',
      'remote',
      '--node',
      'n1',
      '--platform',
      'linux/arm64',
      'tcp://10.0.0.2:1234'
    ]
  ]) {
    expect((await docker('0.29.1', args)).exitCode).toBe(0);
  }
}

/** A build on both nodes; returns its ref as the metadata names it. */
async function buildBothNodes(version: string): Promise<string> {
  const meta = join(dir, 'meta.json');
  const res = await docker(version, [
    'buildx',
    'build',
    '--builder',
    'rb',
    '--platform',
    'linux/amd64,linux/arm64',
    '--metadata-file',
    meta,
    '.'
  ]);
  expect(res.exitCode).toBe(0);
  const value = JSON.parse(readFileSync(meta, 'utf8'))['buildx.build.ref'] as string;
  expect(value).toMatch(/^rb\/n0\/[a-z2-7]{25}$/);
  return value.split('/')[2] as string;
}

describe('a build leaves its ref as buildx does', () => {
  test('in the metadata (first node) and in the refs folder of every node that built it', async () => {
    await twoNodes();
    const ref = await buildBothNodes('0.29.1');
    expect(readdirSync(join(dir, 'buildx', 'refs', 'rb', 'n0'))).toEqual([ref]);
    expect(readdirSync(join(dir, 'buildx', 'refs', 'rb', 'n1'))).toEqual([ref]);
  });

  test('a failed build leaves a ref too, and its record says failed with the error', async () => {
    await twoNodes();
    const res = await docker('0.29.1', ['buildx', 'build', '--builder', 'rb', '.'], {
      FAKE_DOCKER_BUILD_FAIL_TIMES: '1',
      FAKE_DOCKER_BUILD_FAIL_OUTPUT: 'user-run-exit'
    });
    expect(res.exitCode).toBe(1);
    const [ref] = readdirSync(join(dir, 'buildx', 'refs', 'rb', 'n0'));
    const inspect = await docker('0.29.1', [
      'buildx',
      'history',
      'inspect',
      '--format',
      'json',
      '--builder',
      'rb',
      ref as string
    ]);
    const json = JSON.parse(inspect.stdout) as {Status: string; Error?: {Message: string}; Ref: string};
    expect(json).toMatchObject({
      Ref: ref,
      Status: 'failed',
      Error: {Message: expect.stringContaining('did not complete successfully')}
    });
  });
});

describe('buildx history per version', () => {
  test('below 0.23 there is no history command', async () => {
    await twoNodes();
    const res = await docker('0.22.0', ['buildx', 'history', 'inspect', '--format', 'json', '--builder', 'rb', 'x']);
    expect(res).toMatchObject({exitCode: 1, stderr: 'ERROR: unknown command "history" for "docker buildx"\n'});
  });

  test('0.23 refuses --finalize; exports without it', async () => {
    await twoNodes();
    const ref = await buildBothNodes('0.23.0');
    const out = join(dir, 'r.dockerbuild');
    const refused = await docker('0.23.0', [
      'buildx',
      'history',
      'export',
      '--builder',
      'rb',
      '--output',
      out,
      '--finalize',
      ref
    ]);
    expect(refused).toMatchObject({exitCode: 1, stderr: 'ERROR: unknown flag: --finalize\n'});
    expect(
      (await docker('0.23.0', ['buildx', 'history', 'export', '--builder', 'rb', '--output', out, ref])).exitCode
    ).toBe(0);
    expect(readDockerbuild(out).records.map(r => r['Ref'])).toEqual([ref]);
  });

  test("a ref built on two nodes: one node's record below 0.33, both from 0.33, each naming the build", async () => {
    await twoNodes();
    const ref = await buildBothNodes('0.33.0');
    const out = (v: string): string => join(dir, `${v}.dockerbuild`);
    for (const v of ['0.29.1', '0.33.0']) {
      const res = await docker(v, [
        'buildx',
        'history',
        'export',
        '--builder',
        'rb',
        '--output',
        out(v),
        '--finalize',
        ref
      ]);
      expect(res.exitCode).toBe(0);
    }
    expect(readDockerbuild(out('0.29.1')).records.map(r => r['Ref'])).toEqual([ref]);
    const both = readDockerbuild(out('0.33.0'));
    expect(both.records.map(r => r['Ref'])).toEqual([ref, ref]);
    expect(both.files.has('oci-layout')).toBe(true);
  });

  test('FAKE_DOCKER_HISTORY_OFF=1: no record of any build', async () => {
    await twoNodes();
    const off = {FAKE_DOCKER_HISTORY_OFF: '1'};
    const meta = join(dir, 'meta.json');
    await docker('0.29.1', ['buildx', 'build', '--builder', 'rb', '--metadata-file', meta, '.'], off);
    const ref = (JSON.parse(readFileSync(meta, 'utf8'))['buildx.build.ref'] as string).split('/')[2] as string;
    const res = await docker(
      '0.29.1',
      ['buildx', 'history', 'export', '--builder', 'rb', '--output', join(dir, 'x'), ref],
      off
    );
    expect(res).toMatchObject({exitCode: 1, stderr: `ERROR: no record found for ref "${ref}"\n`});
  });
});

describe("history export writes buildx's archive (as buildx 0.29.1 wrote it against a real BuildKit)", () => {
  /** `<mode, octal> <name>` of each entry of a gzip-compressed tar, in order. */
  function entries(path: string): string[] {
    const t = gunzipSync(readFileSync(path));
    const out: string[] = [];
    for (let off = 0; off + 512 <= t.length;) {
      const h = t.subarray(off, off + 512);
      if (h.every(b => b === 0)) break;
      const field = (from: number, len: number): string => h.toString('utf8', from, from + len).replace(/\0.*$/s, '');
      out.push(`${parseInt(field(100, 8).trim(), 8).toString(8)} ${field(0, 100)}`);
      off += 512 + Math.ceil(parseInt(field(124, 12) || '0', 8) / 512) * 512;
    }
    return out;
  }

  async function exportOf(refs: string[], out: string): Promise<void> {
    const res = await docker('0.29.1', ['buildx', 'history', 'export', '--builder', 'rb', '--output', out, ...refs]);
    expect(res.exitCode).toBe(0);
  }

  test('entries sorted by name: the blob folders, the blobs, index.json, oci-layout', async () => {
    await twoNodes();
    const ref = await buildBothNodes('0.29.1');
    const out = join(dir, 'r.dockerbuild');
    await exportOf([ref], out);
    const names = entries(out);
    expect(names.slice(0, 2)).toEqual(['755 blobs/', '755 blobs/sha256/']);
    expect(names.slice(-2)).toEqual(['644 index.json', '444 oci-layout']);
    // A record: its manifest, its config and its logs.
    expect(names.slice(2, -2)).toEqual([
      expect.stringMatching(/^444 blobs\/sha256\/[0-9a-f]{64}$/),
      expect.stringMatching(/^444 blobs\/sha256\/[0-9a-f]{64}$/),
      expect.stringMatching(/^444 blobs\/sha256\/[0-9a-f]{64}$/)
    ]);
    const byName = names.map(n => n.slice(4));
    expect(byName).toEqual([...byName].sort());
  });

  test("two exports merged by the core's mergeRecordFiles: one file of both records, as one export of both", async () => {
    await twoNodes();
    const first = await buildBothNodes('0.29.1');
    const second = await buildBothNodes('0.29.1');
    const [a, b, both, merged] = ['a', 'b', 'both', 'merged'].map(n => join(dir, `${n}.dockerbuild`)) as [
      string,
      string,
      string,
      string
    ];
    await exportOf([first], a);
    await exportOf([second], b);
    await exportOf([first, second], both);
    const result = await mergeRecordFiles({
      files: [
        {path: a, label: 'a'},
        {path: b, label: 'b'}
      ],
      output: merged
    });
    expect(result).toEqual({merged: [a, b], records: 2, warnings: []});
    const m = readDockerbuild(merged);
    const e = readDockerbuild(both);
    expect(m.records).toEqual(e.records);
    // The same archive as buildx's own export of both refs: the same entries, the same bytes.
    expect(entries(merged)).toEqual(entries(both));
    for (const [name, data] of e.files) expect(m.files.get(name)?.equals(data)).toBe(true);
  });
});
