import {createHash} from 'node:crypto';
import {readFile, writeFile} from 'node:fs/promises';
import {basename} from 'node:path';
import {gunzipSync, gzipSync} from 'node:zlib';
import {extract, pack} from 'tar-stream';
import {errorMessage} from '../errors.js';

/**
 * The `.dockerbuild` format, as buildx's `history export` writes it (util/desktop/bundle/export.go, through
 * containerd's images/archive exporter with WithSkipDockerManifest): a gzip-compressed tar of an OCI layout,
 * entries sorted by name (`blobs/`, `blobs/sha256/`, the blobs, `index.json`, `oci-layout`), owner 0, time 0
 * (as buildx 0.29.1 wrote it against a real BuildKit). index.json lists
 * one descriptor: the record's manifest when the file holds one record, else an index (the blob written with
 * Go's json.MarshalIndent) listing one manifest per record, each annotated with its ref. A record's manifest has
 * the history record as its config (HISTORY_RECORD_MEDIA_TYPE) and the trace, logs and results as layers.
 */
export const HISTORY_RECORD_MEDIA_TYPE = 'application/vnd.buildkit.historyrecord.v0';
/** The annotation buildx puts on each record's manifest in a file of several records. */
export const HISTORY_REFERENCE_ANNOTATION = 'vnd.buildkit.history.reference';
const INDEX_MEDIA_TYPE = 'application/vnd.oci.image.index.v1+json';
const MANIFEST_MEDIA_TYPE = 'application/vnd.oci.image.manifest.v1+json';
/** Bounds of what is read from a file (records are KBs to a few MBs; a bad file must not eat the runner's memory). */
const MAX_FILE_BYTES = 512 * 1024 * 1024;

/** An OCI descriptor, its keys in the order Go's ocispec.Descriptor writes them. */
export interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  annotations?: Record<string, string>;
  [key: string]: unknown;
}

/** What one `.dockerbuild` holds: its blobs by digest and one manifest descriptor per record (annotated with its ref). */
export interface RecordBundle {
  blobs: Map<string, Buffer>;
  records: Descriptor[];
}

/**
 * Reads a `.dockerbuild` file: every blob (each checked against its digest) and the descriptor of each record's
 * manifest, checked down to its history-record config. The index of a file of several records is left out of
 * `blobs` (a merge writes its own). Throws, saying what is wrong, when the file is not a complete record file.
 */
export async function readRecordBundle(path: string): Promise<RecordBundle> {
  const data = await readFile(path);
  if (data.length > MAX_FILE_BYTES) throw new Error(`it is larger than ${MAX_FILE_BYTES} bytes`);
  let tar: Buffer;
  try {
    tar = gunzipSync(data, {maxOutputLength: MAX_FILE_BYTES});
  } catch (e) {
    throw new Error(`not gzip-compressed (${errorMessage(e)})`);
  }
  const files = await untar(tar);
  if (!files.has('oci-layout')) throw new Error('no oci-layout: not an OCI layout');
  const blobs = new Map<string, Buffer>();
  for (const [name, content] of files) {
    const m = /^blobs\/sha256\/([0-9a-f]{64})$/.exec(name);
    if (!m) continue;
    const digest = `sha256:${m[1]}`;
    if (sha256(content) !== digest) throw new Error(`blob ${digest} does not match its digest`);
    blobs.set(digest, content);
  }
  const json = (what: string, content: Buffer | undefined): Record<string, unknown> => {
    if (content === undefined) throw new Error(`no ${what}`);
    try {
      const parsed: unknown = JSON.parse(content.toString('utf8'));
      if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
        return parsed as Record<string, unknown>;
      }
    } catch {
      // said below
    }
    throw new Error(`${what} is not a JSON object`);
  };
  const blobJson = (d: Descriptor): Record<string, unknown> => json(`blob ${d.digest}`, blobs.get(d.digest));
  const top = descriptors(json('index.json', files.get('index.json')).manifests, 'index.json');
  const records: Descriptor[] = [];
  for (const d of top) {
    if (d.mediaType === INDEX_MEDIA_TYPE) {
      const manifests = descriptors(blobJson(d).manifests, `index ${d.digest}`);
      blobs.delete(d.digest);
      for (const m of manifests) records.push(checkedRecord(m, blobJson, blobs));
    } else {
      records.push(checkedRecord(d, blobJson, blobs));
    }
  }
  if (records.length === 0) throw new Error('index.json lists no record');
  return {blobs, records};
}

/** The record manifest `d` (its blobs present), annotated with its ref (read from the record when it has none). */
function checkedRecord(
  d: Descriptor,
  blobJson: (d: Descriptor) => Record<string, unknown>,
  blobs: Map<string, Buffer>
): Descriptor {
  if (d.mediaType !== MANIFEST_MEDIA_TYPE) throw new Error(`${d.digest} is a ${d.mediaType}, not a record's manifest`);
  const manifest = blobJson(d);
  const [config] = descriptors([manifest.config], `manifest ${d.digest}'s config`);
  if (config?.mediaType !== HISTORY_RECORD_MEDIA_TYPE) {
    throw new Error(`manifest ${d.digest} has no build record config`);
  }
  for (const layer of descriptors(manifest.layers ?? [], `manifest ${d.digest}'s layers`)) {
    if (!blobs.has(layer.digest)) throw new Error(`blob ${layer.digest} of manifest ${d.digest} is missing`);
  }
  const record = blobJson(config);
  const ref = d.annotations?.[HISTORY_REFERENCE_ANNOTATION] ?? (typeof record.Ref === 'string' ? record.Ref : '');
  if (ref === '') throw new Error(`the record of manifest ${d.digest} has no Ref`);
  return {...d, annotations: {...d.annotations, [HISTORY_REFERENCE_ANNOTATION]: ref}};
}

function descriptors(value: unknown, what: string): Descriptor[] {
  if (!Array.isArray(value)) throw new Error(`${what} has no descriptor list`);
  return value.map(v => {
    const d = v as Partial<Descriptor> | null;
    if (
      d === null ||
      typeof d !== 'object' ||
      typeof d.mediaType !== 'string' ||
      typeof d.digest !== 'string' ||
      !/^sha256:[0-9a-f]{64}$/.test(d.digest) ||
      typeof d.size !== 'number'
    ) {
      throw new Error(`${what} holds a malformed descriptor`);
    }
    return d as Descriptor;
  });
}

/** The ref of a record descriptor (readRecordBundle sets it on each). */
export function recordRef(d: Descriptor): string {
  return d.annotations?.[HISTORY_REFERENCE_ANNOTATION] ?? '';
}

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
  /** The `.dockerbuild` files, in the step's order (each labelled for the warnings, e.g. by its builder). */
  files: {path: string; label: string}[];
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
      bundles.push(await readRecordBundle(f.path));
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

function sha256(data: Buffer): string {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`;
}

/** The regular files of a tar archive by name (`./` dropped). */
async function untar(tar: Buffer): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  const x = extract();
  const done = (async () => {
    for await (const entry of x) {
      const chunks: Buffer[] = [];
      for await (const chunk of entry as AsyncIterable<Buffer>) chunks.push(chunk);
      if (entry.header.type === 'file') files.set(entry.header.name.replace(/^\.\//, ''), Buffer.concat(chunks));
    }
  })();
  x.end(tar);
  try {
    await done;
  } catch (e) {
    throw new Error(`not a tar archive (${errorMessage(e)})`);
  }
  return files;
}

async function streamToBuffer(stream: AsyncIterable<unknown>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
