// `.dockerbuild` files as buildx 0.29.1 writes them (checked against a real BuildKit's `history export`):
// gzip of a tar of an OCI layout, index.json naming the record's manifest, or an index of one manifest per
// record annotated with its ref; written here with their own tar code, apart from the code under test.
import {createHash} from 'node:crypto';
import {writeFileSync} from 'node:fs';
import {gunzipSync, gzipSync} from 'node:zlib';

export interface FixtureRecord {
  ref: string;
  /** Layer contents (trace, logs …): the same content in two records is one blob. */
  layers?: string[];
  /** More fields of the history record (`CreatedAt`, `error`, `localState`, …). */
  record?: Record<string, unknown>;
}

interface Desc {
  mediaType: string;
  digest: string;
  size: number;
  annotations?: Record<string, string>;
}

/** A fault in the file: the first record's first layer left out, or stored with other bytes than its digest's. */
export type FixtureFault = 'missing-layer' | 'tampered-layer';

/** Writes a `.dockerbuild` of `records` to `path`; returns the blobs' digests it holds (the index's last). */
export function writeFixture(path: string, records: FixtureRecord[], fault?: FixtureFault): string[] {
  const blobs = new Map<string, Buffer>();
  const put = (mediaType: string, data: Buffer): Desc => {
    const digest = `sha256:${createHash('sha256').update(data).digest('hex')}`;
    blobs.set(digest, data);
    return {mediaType, digest, size: data.length};
  };
  const json = (mediaType: string, value: unknown): Desc => put(mediaType, Buffer.from(JSON.stringify(value, null, 2)));
  let firstLayer: string | undefined;
  const manifests = records.map(r => {
    const config = json('application/vnd.buildkit.historyrecord.v0', {
      Ref: r.ref,
      FrontendAttrs: {filename: 'Dockerfile'},
      ...r.record
    });
    const layers = (r.layers ?? [`trace of ${r.ref}`]).map(l =>
      put('application/vnd.buildkit.status.v0', Buffer.from(l))
    );
    firstLayer ??= layers[0]?.digest;
    return json('application/vnd.oci.image.manifest.v1+json', {
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      config,
      layers
    });
  });
  const top =
    manifests.length === 1
      ? manifests[0]
      : json('application/vnd.oci.image.index.v1+json', {
          schemaVersion: 2,
          mediaType: 'application/vnd.oci.image.index.v1+json',
          manifests: manifests.map((m, i) => ({...m, annotations: {'vnd.buildkit.history.reference': records[i]?.ref}}))
        });
  const layer = firstLayer;
  if (fault === 'missing-layer' && layer) blobs.delete(layer);
  if (fault === 'tampered-layer' && layer) blobs.set(layer, Buffer.from('other bytes'));
  const index = {schemaVersion: 2, mediaType: 'application/vnd.oci.image.index.v1+json', manifests: [top]};
  const files: [string, Buffer | undefined][] = [
    ['blobs/', undefined],
    ['blobs/sha256/', undefined],
    ...[...blobs]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([d, c]): [string, Buffer] => [`blobs/sha256/${d.slice(7)}`, c]),
    ['index.json', Buffer.from(JSON.stringify(index))],
    ['oci-layout', Buffer.from('{"imageLayoutVersion":"1.0.0"}')]
  ];
  writeFileSync(path, gzipSync(tar(files)));
  return [...blobs.keys()];
}

/** A ustar archive: directories (no content) and regular files, owner 0, time 0. */
function tar(files: [string, Buffer | undefined][]): Buffer {
  const parts: Buffer[] = [];
  for (const [name, data] of files) {
    const h = Buffer.alloc(512);
    const octal = (n: number, width: number): string => n.toString(8).padStart(width - 1, '0') + '\0';
    h.write(name, 0, 100, 'utf8');
    h.write(octal(data ? 0o444 : 0o755, 8), 100);
    h.write(octal(0, 8), 108);
    h.write(octal(0, 8), 116);
    h.write(octal(data?.length ?? 0, 12), 124);
    h.write(octal(0, 12), 136);
    h.write('        ', 148);
    h.write(data ? '0' : '5', 156);
    h.write('ustar\0' + '00', 257);
    let sum = 0;
    for (const b of h) sum += b;
    h.write(octal(sum, 7) + ' ', 148);
    parts.push(h);
    if (data) parts.push(data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

/** The entry names of a gzip-compressed tar, in order (repeats kept). */
export function tarNames(gz: Buffer): string[] {
  const t = gunzipSync(gz);
  const names: string[] = [];
  for (let off = 0; off + 512 <= t.length;) {
    const h = t.subarray(off, off + 512);
    if (h.every(b => b === 0)) break;
    names.push(h.toString('utf8', 0, 100).replace(/\0.*$/s, ''));
    const size = parseInt(h.toString('utf8', 124, 136).replace(/\0.*$/s, '').trim() || '0', 8);
    off += 512 + Math.ceil(size / 512) * 512;
  }
  return names;
}
