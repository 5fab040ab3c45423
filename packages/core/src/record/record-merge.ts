import {writeFile} from 'node:fs/promises';
import {basename} from 'node:path';
import {gzipSync} from 'node:zlib';
import {pack} from 'tar-stream';
import {errorMessage} from '../errors.js';
import {
  HISTORY_REFERENCE_ANNOTATION,
  INDEX_MEDIA_TYPE,
  readRecordBundle,
  sha256,
  type Descriptor,
  type RecordBundle
} from './record-bundle.js';

/**
 * A `.dockerbuild` of `bundles` together, as buildx writes a file of several records: the union of their blobs
 * and one index listing every record once (a manifest met twice is one record), in the bundles' order.
 */
export async function writeRecordBundle(bundles: RecordBundle[]): Promise<Buffer> {
  const blobs = new Map<string, Buffer>();
  const records: Descriptor[] = [];
  for (const b of bundles) {
    for (const [digest, content] of b.blobs) blobs.set(digest, content);
    for (const r of b.records) if (!records.some(o => o.digest === r.digest)) records.push(r);
  }
  const json = (value: unknown, indent?: number): Buffer => Buffer.from(JSON.stringify(value, null, indent));
  let top: Descriptor;
  if (records.length === 1 && records[0]) {
    // One record: buildx lists its manifest itself, without the annotation.
    const {annotations, ...rest} = records[0];
    const others = Object.entries(annotations ?? {}).filter(([k]) => k !== HISTORY_REFERENCE_ANNOTATION);
    top = others.length > 0 ? {...rest, annotations: Object.fromEntries(others)} : rest;
  } else {
    const index = json({schemaVersion: 2, mediaType: INDEX_MEDIA_TYPE, manifests: records}, 2);
    const digest = sha256(index);
    blobs.set(digest, index);
    top = {mediaType: INDEX_MEDIA_TYPE, digest, size: index.length};
  }
  const entries: [string, Buffer | undefined, number][] = [
    ['blobs/', undefined, 0o755],
    ['blobs/sha256/', undefined, 0o755],
    ...[...blobs].map(([d, c]): [string, Buffer, number] => [`blobs/sha256/${d.slice('sha256:'.length)}`, c, 0o444]),
    ['index.json', json({schemaVersion: 2, mediaType: INDEX_MEDIA_TYPE, manifests: [top]}), 0o644],
    ['oci-layout', json({imageLayoutVersion: '1.0.0'}), 0o444]
  ];
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const p = pack();
  const out = streamToBuffer(p);
  for (const [name, content, mode] of entries) {
    const header = {name, mode, mtime: new Date(0), uid: 0, gid: 0};
    if (content === undefined) p.entry({...header, type: 'directory'});
    else p.entry({...header, type: 'file', size: content.length}, content);
  }
  p.finalize();
  return gzipSync(await out);
}

export interface MergeRecordFilesOpts {
  /**
   * The `.dockerbuild` files, in the step's order (each labelled for the warnings, e.g. by its builder), with
   * what was read of each already (it is not read again).
   */
  files: {path: string; label: string; bundle?: RecordBundle}[];
  /** The file to write. */
  output: string;
}

export interface MergedRecordFiles {
  /** The inputs whose records are in `output`, in order; none when no file could be read (nothing is written). */
  merged: string[];
  /** The records in `output`. */
  records: number;
  /** One line per file left out, saying why. */
  warnings: string[];
}

/**
 * Writes one `.dockerbuild` holding every record of `files` (writeRecordBundle). A file that cannot be read as
 * a record file is left out with a warning, and the others are still written. Never throws for a bad input;
 * throws only when `output` cannot be written.
 */
export async function mergeRecordFiles(opts: MergeRecordFilesOpts): Promise<MergedRecordFiles> {
  const bundles: RecordBundle[] = [];
  const merged: string[] = [];
  const warnings: string[] = [];
  for (const f of opts.files) {
    try {
      bundles.push(f.bundle ?? (await readRecordBundle(f.path)));
      merged.push(f.path);
    } catch (e) {
      warnings.push(
        `the record of ${f.label} (${basename(f.path)}) is left out of the record file: ${errorMessage(e)}`
      );
    }
  }
  if (bundles.length === 0) return {merged, records: 0, warnings};
  const data = await writeRecordBundle(bundles);
  await writeFile(opts.output, data);
  const records = new Set(bundles.flatMap(b => b.records.map(r => r.digest))).size;
  return {merged, records, warnings};
}

async function streamToBuffer(stream: AsyncIterable<unknown>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
