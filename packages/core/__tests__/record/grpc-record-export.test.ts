// The direct export of build records (grpc-record-export.ts, buildkit-history.ts) against a BuildKit stand-in
// over mutual TLS that answers with what a real BuildKit answered (fixtures/history-docker-28.5): the bundle must
// be what buildx 0.29.1 wrote of the same record, byte for byte.
import {afterEach, beforeAll, describe, expect, test} from '@jest/globals';
import {BinaryReader, BinaryWriter, WireType} from '@bufbuild/protobuf/wire';
import {createHash} from 'node:crypto';
import {readFileSync} from 'node:fs';
import {mkdir, mkdtemp, rm, writeFile} from 'node:fs/promises';
import {createSecureServer, type Http2Server, type ServerHttp2Stream} from 'node:http2';
import type {AddressInfo} from 'node:net';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {gunzipSync} from 'node:zlib';
import type {RecordNode} from '../../src/record/buildkit-history.js';
import {exportRecordsGrpc, NoRecordError} from '../../src/record/grpc-record-export.js';
import {makePki, type TestPki} from '../fakes/test-pki.js';

const FIXTURE = join(import.meta.dirname, 'fixtures', 'history-docker-28.5');
const REF = 'ii4r2xbg6jygoaoni1g6gw64r';
/** What buildx wrote (fixtures/history-docker-28.5/README.md). */
const BUILDX_MANIFEST = 'sha256:0bdceb07a4ff017e5d7f9f68ca86a72a8b8171f97b3abdbb0887b60a52de1afc';
const BUILDX_CONFIG = 'sha256:b4758ea62d3623fdaa4315924a0b6f671b51f76e42cd545ced7841a0144287a4';
const BUILDX_TRACE = 'sha256:158ac0610f9abd74ca72b8d217cc42365113f93a40fbb095a483927b8535b2c4';
const RAW_TRACE = 'sha256:2d117c68082909978a7319dfb60d9aff026de39576c1036c9c5cd8045519a6b7';
const LOGS = 'sha256:b7309f65af5c7731c031b778ede965d9f2f1758865a36b0db9eb15f7853c6298';
const PROVENANCE = 'sha256:d29b93bc3eb55697d4f38ca2b4d9b701b6ca7096be036167b14e958238ba7ecb';
const IMAGE_INDEX = 'sha256:1ef44e491c4acfc1d2b758374524ed77c1492fae0295d81c8eebd22a2700ea1f';

const EVENT = readFileSync(join(FIXTURE, 'event.pb'));
const BLOBS = new Map<string, Buffer>([
  [RAW_TRACE, gunzipSync(readFileSync(join(FIXTURE, `${RAW_TRACE.slice(7)}.gz`)))],
  ...[LOGS, PROVENANCE, IMAGE_INDEX].map((d): [string, Buffer] => [d, readFileSync(join(FIXTURE, d.slice(7)))])
]);

let pki: TestPki;
beforeAll(async () => {
  pki = await makePki('history');
});
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** The event with the record's field `drop` left out (13: its trace, as before a finalize). */
function withoutRecordField(event: Buffer, drop: number): Uint8Array {
  const r = new BinaryReader(event);
  const [, wire] = r.tag();
  expect(wire).toBe(WireType.Varint);
  const type = r.int32();
  r.tag();
  const record = r.bytes();
  const rr = new BinaryReader(record);
  const kept: Uint8Array[] = [];
  while (rr.pos < rr.len) {
    const start = rr.pos;
    const [field, w] = rr.tag();
    rr.skip(w, field);
    if (field !== drop) kept.push(record.subarray(start, rr.pos));
  }
  const rec = Buffer.concat(kept);
  return new BinaryWriter().tag(1, WireType.Varint).int32(type).tag(2, WireType.LengthDelimited).bytes(rec).finish();
}

function framed(messages: Uint8Array[]): Buffer {
  return Buffer.concat(
    messages.map(m => {
      const prefix = Buffer.alloc(5);
      prefix.writeUInt32BE(m.length, 1);
      return Buffer.concat([prefix, Buffer.from(m)]);
    })
  );
}

/** The string field `n` of a request. */
function stringField(req: Buffer, n: number): string | undefined {
  const r = new BinaryReader(req.subarray(5));
  let value: string | undefined;
  while (r.pos < r.len) {
    const [field, wire] = r.tag();
    if (field === n && wire === WireType.LengthDelimited) value = r.string();
    else r.skip(wire, field);
  }
  return value;
}

interface Node {
  /** What ListenBuildHistory streams for a ref: the fixture's event (once traced), or nothing. */
  events: (ref: string, finalized: boolean) => Uint8Array[];
  blobs?: Map<string, Buffer>;
}

/** A BuildKit stand-in over mutual TLS; `calls` records `<method> <ref or digest>` in order. */
async function buildkit(node: Node): Promise<{port: number; calls: string[]}> {
  const calls: string[] = [];
  const finalized = new Set<string>();
  const srv = createSecureServer({
    cert: pki.server.cert,
    key: pki.server.key,
    ca: pki.ca.cert,
    requestCert: true,
    rejectUnauthorized: true
  }) as unknown as Http2Server;
  srv.on('session', s => s.on('error', () => undefined));
  srv.on('stream', (stream: ServerHttp2Stream, headers) => {
    stream.on('error', () => undefined);
    const method = String(headers[':path']).split('/').pop();
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => {
      const req = Buffer.concat(chunks);
      const answer = (messages: Uint8Array[], status = '0'): void => {
        stream.respond({':status': 200, 'content-type': 'application/grpc'}, {waitForTrailers: true});
        stream.on('wantTrailers', () => stream.sendTrailers({'grpc-status': status}));
        stream.end(framed(messages));
      };
      if (method === 'ListenBuildHistory') {
        const ref = stringField(req, 2) ?? '';
        calls.push(`listen ${ref}`);
        return answer(node.events(ref, finalized.has(ref)));
      }
      if (method === 'UpdateBuildHistory') {
        const ref = stringField(req, 1) ?? '';
        calls.push(`finalize ${ref}`);
        finalized.add(ref);
        return answer([new Uint8Array()]);
      }
      if (method === 'Read') {
        const digest = stringField(req, 1) ?? '';
        calls.push(`read ${digest.slice(7, 13)}`);
        const data = (node.blobs ?? BLOBS).get(digest);
        if (!data) return answer([], '5');
        // In two messages, the second at its offset, as BuildKit streams a larger blob.
        const half = Math.floor(data.length / 2);
        const part = (offset: number, bytes: Buffer): Uint8Array =>
          new BinaryWriter()
            .tag(1, WireType.Varint)
            .int64(offset)
            .tag(2, WireType.LengthDelimited)
            .bytes(bytes)
            .finish();
        return answer([part(0, data.subarray(0, half)), part(half, data.subarray(half))]);
      }
      answer([], '12');
    });
  });
  await new Promise<void>(resolve => srv.listen(0, '127.0.0.1', () => resolve()));
  cleanups.push(() => new Promise<void>(resolve => srv.close(() => resolve())));
  return {port: (srv.address() as AddressInfo).port, calls};
}

function node(port: number, name = 'default', platforms = ['linux/amd64']): RecordNode {
  return {
    name,
    hostname: '127.0.0.1',
    port,
    platforms,
    pems: {ca: pki.ca.cert, cert: pki.client.cert, key: pki.client.key}
  };
}

async function localState(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'grpc-record-export-'));
  cleanups.push(() => rm(dir, {recursive: true, force: true}));
  await mkdir(join(dir, 'refs', 'default', 'default'), {recursive: true});
  await writeFile(
    join(dir, 'refs', 'default', 'default', REF),
    '{"Target":"default","LocalPath":"/tmp/rec","DockerfilePath":""}'
  );
  return dir;
}

const sha256 = (b: Buffer): string => `sha256:${createHash('sha256').update(b).digest('hex')}`;
const settle = async (): Promise<void> => undefined;
const traced = (ref: string): Uint8Array[] => (ref === REF ? [EVENT] : []);

describe('exportRecordsGrpc', () => {
  test("reads a record over mutual TLS and writes what buildx's history export writes, byte for byte", async () => {
    const bk = await buildkit({events: traced});
    const configDir = await localState();
    const r = await exportRecordsGrpc({
      builder: 'default',
      nodes: [node(bk.port)],
      refs: [REF],
      configDir,
      signal: new AbortController().signal,
      settle
    });
    expect(r.records).toEqual([{ref: REF, node: 'default'}]);
    expect(r.missing).toEqual([]);
    expect(r.bundle.records.map(d => d.digest)).toEqual([BUILDX_MANIFEST]);
    expect(r.bundle.blobs.get(BUILDX_CONFIG)?.toString()).toBe(
      readFileSync(join(FIXTURE, 'buildx-record.json'), 'utf8')
    );
    expect([...r.bundle.blobs.keys()].sort()).toEqual(
      [BUILDX_MANIFEST, BUILDX_CONFIG, BUILDX_TRACE, LOGS, PROVENANCE, IMAGE_INDEX].sort()
    );
    for (const [digest, data] of r.bundle.blobs) expect(sha256(data)).toBe(digest);
    // The trace has one: no finalize. Every blob read once.
    expect(bk.calls[0]).toBe(`listen ${REF}`);
    expect(bk.calls.filter(c => c.startsWith('finalize'))).toEqual([]);
    expect(bk.calls.filter(c => c.startsWith('read')).sort()).toEqual([
      'read 1ef44e',
      'read 2d117c',
      'read b7309f',
      'read d29b93'
    ]);
  });

  test('a record without its trace is finalized, then read again', async () => {
    const bk = await buildkit({
      events: (ref, finalized) => (ref !== REF ? [] : finalized ? [EVENT] : [withoutRecordField(EVENT, 13)])
    });
    const r = await exportRecordsGrpc({
      builder: 'default',
      nodes: [node(bk.port)],
      refs: [REF],
      configDir: await localState(),
      signal: new AbortController().signal,
      settle
    });
    expect(bk.calls.slice(0, 3)).toEqual([`listen ${REF}`, `finalize ${REF}`, `listen ${REF}`]);
    expect(r.bundle.records.map(d => d.digest)).toEqual([BUILDX_MANIFEST]);
  });

  test('a BuildKit that ignores the finalize: the caller waits (settle), and the record is read once more', async () => {
    const bk = await buildkit({events: ref => (ref === REF ? [withoutRecordField(EVENT, 13)] : [])});
    const order: string[] = [];
    const r = await exportRecordsGrpc({
      builder: 'default',
      nodes: [node(bk.port)],
      refs: [REF],
      configDir: await localState(),
      signal: new AbortController().signal,
      settle: async () => void order.push(`settle after ${bk.calls.length} calls`)
    });
    expect(order).toEqual(['settle after 3 calls']);
    expect(bk.calls.slice(0, 4)).toEqual([`listen ${REF}`, `finalize ${REF}`, `listen ${REF}`, `listen ${REF}`]);
    // Exported without a trace, as buildx would: logs, provenance, the result.
    expect(r.bundle.blobs.has(BUILDX_TRACE)).toBe(false);
    expect(r.bundle.blobs.has(LOGS)).toBe(true);
  });

  test("every node's record of a ref (two nodes built it), and a ref no node has is named missing", async () => {
    const a = await buildkit({events: traced});
    const b = await buildkit({events: traced});
    const r = await exportRecordsGrpc({
      builder: 'default',
      nodes: [node(a.port, 'default'), node(b.port, 'arm', ['linux/arm64'])],
      refs: [REF, 'zzzzzzzzzzzz'],
      configDir: await localState(),
      signal: new AbortController().signal,
      settle
    });
    expect(r.records.map(x => x.node).sort()).toEqual(['arm', 'default']);
    expect(r.missing).toEqual(['zzzzzzzzzzzz']);
    // Two manifests: the records differ in their node's default platform (and local state: only `default` has one).
    expect(new Set(r.bundle.records.map(d => d.digest)).size).toBe(2);
    expect(r.bundle.records.map(d => d.annotations)).toEqual([
      {'vnd.buildkit.history.reference': REF},
      {'vnd.buildkit.history.reference': REF}
    ]);
  });

  test('no node has a record of any ref: NoRecordError (history turned off)', async () => {
    const bk = await buildkit({events: () => []});
    await expect(
      exportRecordsGrpc({
        builder: 'default',
        nodes: [node(bk.port)],
        refs: [REF],
        configDir: '/nonexistent',
        signal: new AbortController().signal,
        settle
      })
    ).rejects.toThrow(NoRecordError);
  });

  test('a blob that is not what its digest says fails the export, naming the blob', async () => {
    const blobs = new Map(BLOBS);
    blobs.set(LOGS, Buffer.from('not the logs'));
    const bk = await buildkit({events: traced, blobs});
    await expect(
      exportRecordsGrpc({
        builder: 'default',
        nodes: [node(bk.port)],
        refs: [REF],
        configDir: '/nonexistent',
        signal: new AbortController().signal,
        settle
      })
    ).rejects.toThrow(`blob ${LOGS} did not arrive whole (12 of 3285 bytes`);
  });
});
