import {readFileSync} from 'node:fs';
import {gunzipSync} from 'node:zlib';

/** An OCI descriptor as index.json and manifests hold them. */
interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  annotations?: Record<string, string>;
}

/** The media type of a build record (buildx's util/desktop/bundle HistoryRecordMediaTypeV0). */
export const HISTORY_RECORD_MEDIA_TYPE = 'application/vnd.buildkit.historyrecord.v0';

/** What a `.dockerbuild` file holds, read as Docker Desktop's Builds view imports it. */
export interface Dockerbuild {
  /** Every file of the archive by path (`oci-layout`, `index.json`, `blobs/sha256/<hex>`). */
  files: Map<string, Buffer>;
  index: {manifests: Descriptor[]};
  /** Each record's config (the BuildHistoryRecord as buildx writes it: `Ref`, `FrontendAttrs`, `error`, …), in order. */
  records: Record<string, unknown>[];
}

/**
 * Reads a `.dockerbuild` (buildx history export): gunzip, untar, then from index.json through the index (one
 * per record when there are several) and each manifest to its history-record config. Throws when any part is
 * missing or is not what buildx writes.
 */
export function readDockerbuild(path: string): Dockerbuild {
  const files = untar(gunzipSync(readFileSync(path)));
  const json = (name: string): unknown => {
    const data = files.get(name);
    if (!data) throw new Error(`${path}: no ${name} in the archive`);
    return JSON.parse(data.toString('utf8'));
  };
  const blob = (d: Descriptor): unknown => json(`blobs/sha256/${d.digest.replace(/^sha256:/, '')}`);
  if (!files.has('oci-layout')) throw new Error(`${path}: no oci-layout: not an OCI layout`);
  const index = json('index.json') as {manifests: Descriptor[]};
  const records: Record<string, unknown>[] = [];
  const walk = (d: Descriptor): void => {
    const content = blob(d) as {manifests?: Descriptor[]; config?: Descriptor};
    if (d.mediaType.endsWith('image.index.v1+json')) {
      for (const m of content.manifests ?? []) walk(m);
      return;
    }
    if (content.config?.mediaType !== HISTORY_RECORD_MEDIA_TYPE) {
      throw new Error(`${path}: manifest ${d.digest} has no build record config (${content.config?.mediaType})`);
    }
    records.push(blob(content.config) as Record<string, unknown>);
  };
  for (const m of index.manifests) walk(m);
  return {files, index, records};
}

/** The regular files of a tar archive (ustar, with its name prefix). */
function untar(tar: Buffer): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (let off = 0; off + 512 <= tar.length;) {
    const header = tar.subarray(off, off + 512);
    if (header.every(b => b === 0)) break;
    const text = (from: number, len: number): string => header.toString('utf8', from, from + len).replace(/\0.*$/s, '');
    const prefix = text(345, 155);
    const name = (prefix ? `${prefix}/` : '') + text(0, 100);
    const size = parseInt(text(124, 12).trim() || '0', 8);
    const type = String.fromCharCode(header[156] ?? 0);
    off += 512;
    if (type === '0' || type === '\0') files.set(name.replace(/^\.\//, ''), Buffer.from(tar.subarray(off, off + size)));
    off += Math.ceil(size / 512) * 512;
  }
  return files;
}
