import {createHash} from 'node:crypto';
import {readFile} from 'node:fs/promises';
import {gunzipSync} from 'node:zlib';
import {extract} from 'tar-stream';
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
export const INDEX_MEDIA_TYPE = 'application/vnd.oci.image.index.v1+json';
export const MANIFEST_MEDIA_TYPE = 'application/vnd.oci.image.manifest.v1+json';
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

export function sha256(data: Buffer): string {
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

/** The history record (the manifest's config, a BuildHistoryRecord as buildx writes it) of record `d` of `bundle`. */
export function recordConfig(bundle: RecordBundle, d: Descriptor): Record<string, unknown> {
  const json = (digest: string): Record<string, unknown> => {
    const content = bundle.blobs.get(digest);
    if (content === undefined) throw new Error(`no blob ${digest}`);
    return JSON.parse(content.toString('utf8')) as Record<string, unknown>;
  };
  const config = json(d.digest).config as Descriptor;
  return json(config.digest);
}
