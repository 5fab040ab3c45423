// The fake docker's BuildKit build history (see fake-docker.mjs's header): what a build leaves as real buildx
// does (a ref per build, `refs/<builder>/<node>/<ref>` in buildx's config dir before the build runs, and
// `buildx.build.ref` = `<builder>/<node>/<ref>` in the metadata), kept in $FAKE_DOCKER_DIR/history.json
// (one record per ref and node), and `buildx history inspect|export` over it, per buildx version:
// `history` is an unknown command below 0.23, `--finalize` an unknown flag below 0.24, and below 0.33
// `history export <ref>` keeps one node's record of a ref (the newest), from 0.33 every node's.
// FAKE_DOCKER_HISTORY_OFF=1: BuildKit keeps no history (`no record found for ref`).
import {createHash, randomBytes} from 'node:crypto';
import {existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {buildxConfigDir} from './buildx-store.mjs';

// node:zlib only when a history is exported: loading it costs every build ~6 ms of CPU.
const gzipSync = data => process.getBuiltinModule('node:zlib').gzipSync(data);

const historyPath = dir => join(dir, 'history.json');
const readHistory = dir => (existsSync(historyPath(dir)) ? JSON.parse(readFileSync(historyPath(dir), 'utf8')) : []);

/** A new ref as BuildKit's identity.NewID makes them: 25 lower-case base32 characters. */
export function newRef() {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  return [...randomBytes(25)].map(b => alphabet[b % 32]).join('');
}

/**
 * A build starts on `nodes` of `builder`: its ref file on each (buildx's localstate, written before the
 * solve, so a failed build has one too) and a running record in the history. Returns the metadata value.
 */
export function startBuild({dir, builder, nodes, ref, name, withLock}) {
  const refs = join(buildxConfigDir(), 'refs', builder);
  for (const node of nodes) {
    mkdirSync(join(refs, node), {recursive: true});
    writeFileSync(join(refs, node, ref), JSON.stringify({Target: name, LocalPath: process.cwd()}));
  }
  if (process.env.FAKE_DOCKER_HISTORY_OFF !== '1') {
    const at = Date.now();
    withLock(() => {
      const records = readHistory(dir);
      for (const node of nodes) records.push({builder, node, ref, name, status: 'running', startedAt: at});
      writeFileSync(historyPath(dir), JSON.stringify(records, null, 2));
    });
  }
  return `${builder}/${nodes[0]}/${ref}`;
}

/** The build of `ref` ended: `completed`, or `failed` with buildx's error message. */
export function endBuild({dir, ref, error, withLock}) {
  if (process.env.FAKE_DOCKER_HISTORY_OFF === '1') return;
  withLock(() => {
    const records = readHistory(dir).map(r =>
      r.ref === ref
        ? {...r, status: error ? 'failed' : 'completed', completedAt: Date.now(), ...(error ? {error} : {})}
        : r
    );
    writeFileSync(historyPath(dir), JSON.stringify(records, null, 2));
  });
}

/**
 * `buildx history <sub> …` (args after `history`) for buildx `since` (a minor-version test). Returns
 * {stdout} or {error} (buildx's message, exit 1).
 */
export function history({dir, args, since, builderOf}) {
  if (!since(23)) return {error: 'unknown command "history" for "docker buildx"'};
  const [sub, ...rest] = args;
  const value = name => {
    const i = rest.indexOf(name);
    return i >= 0 ? rest[i + 1] : undefined;
  };
  const valued = new Set(['--builder', '--format', '--output', '-o']);
  const positional = rest.filter((a, i) => !a.startsWith('-') && !valued.has(rest[i - 1]));
  const builder = value('--builder') || 'default';
  if (!builderOf(builder)) return {error: `no builder "${builder}" found`};
  const records = readHistory(dir).filter(r => r.builder === builder && r.status !== 'running');
  const find = ref => records.filter(r => r.ref === ref).sort((a, b) => b.completedAt - a.completedAt);
  if (sub === 'inspect') {
    const ref = positional[0];
    const found = find(ref)[0];
    if (!found) return {error: `no record found for ref "${ref}"`};
    if (value('--format') !== 'json')
      return {stdout: `Name:\t${found.name}\nRef:\t${found.ref}\nStatus:\t${found.status}\n`};
    return {stdout: JSON.stringify(inspectJson(found), null, 2) + '\n'};
  }
  if (sub === 'export') {
    if (rest.includes('--finalize') && !since(24)) return {error: 'unknown flag: --finalize'};
    const output = value('--output') ?? value('-o');
    if (!output) return {error: 'refusing to write to console, use --output to specify a file'};
    const chosen = [];
    for (const ref of positional) {
      const recs = find(ref);
      if (recs.length === 0) return {error: `no record found for ref "${ref}"`};
      chosen.push(...(since(33) ? recs : recs.slice(0, 1)));
    }
    writeFileSync(output, dockerbuild(chosen));
    return {stdout: ''};
  }
  return {error: `unknown command "${sub}" for "docker buildx history"`};
}

/** `history inspect --format json`: Go's field names, Duration in ns. */
function inspectJson(r) {
  const steps = 4;
  return {
    Name: r.name,
    Ref: r.ref,
    StartedAt: new Date(r.startedAt).toISOString(),
    CompletedAt: new Date(r.completedAt).toISOString(),
    Duration: (r.completedAt - r.startedAt) * 1e6,
    Status: r.status,
    ...(r.error ? {Error: {Code: 2, Message: r.error}} : {}),
    NumCompletedSteps: r.status === 'failed' ? steps - 1 : steps,
    NumTotalSteps: steps,
    NumCachedSteps: 0
  };
}

/**
 * A `.dockerbuild` as buildx's bundle.Export writes it (buildx 0.29.1 against a real BuildKit, checked): a
 * gzip-compressed tar of an OCI layout, entries sorted by name (`blobs/`, `blobs/sha256/`, the blobs,
 * `index.json`, `oci-layout`; owner 0, time 0, blobs 0444), whose index.json names one manifest per record
 * (an index annotated with each ref when there are several), each manifest's config the history record
 * (`application/vnd.buildkit.historyrecord.v0`) and its layers the build's logs; blobs written as Go's
 * json.MarshalIndent does.
 */
function dockerbuild(records) {
  const blobs = new Map();
  const put = (mediaType, data) => {
    const digest = 'sha256:' + createHash('sha256').update(data).digest('hex');
    blobs.set(digest, data);
    return {mediaType, digest, size: data.length};
  };
  const json = (mediaType, value) => put(mediaType, Buffer.from(JSON.stringify(value, null, 2)));
  const manifests = records.map(r => {
    // The keys as buildx writes them (the BuildHistoryRecord's Go fields, some with their JSON names;
    // timestamps as Go's encoding/json writes a protobuf Timestamp).
    const config = json('application/vnd.buildkit.historyrecord.v0', {
      Ref: r.ref,
      FrontendAttrs: {target: r.name},
      ...(r.error ? {error: {code: 2, message: r.error}} : {}),
      CreatedAt: timestamp(r.startedAt),
      CompletedAt: timestamp(r.completedAt),
      numTotalSteps: 4,
      numCompletedSteps: r.error ? 3 : 4,
      DefaultPlatform: 'linux/amd64'
    });
    const logs = put(
      'application/vnd.buildkit.status.v0',
      Buffer.from(`#1 [internal] load build definition\n#1 DONE 0.0s\n`)
    );
    const manifest = json('application/vnd.oci.image.manifest.v1+json', {
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      config,
      layers: [logs]
    });
    return {...manifest, annotations: {'vnd.buildkit.history.reference': r.ref}};
  });
  const top =
    manifests.length === 1
      ? (({annotations: _a, ...m}) => m)(manifests[0])
      : json('application/vnd.oci.image.index.v1+json', {
          schemaVersion: 2,
          mediaType: 'application/vnd.oci.image.index.v1+json',
          manifests
        });
  const index = {schemaVersion: 2, mediaType: 'application/vnd.oci.image.index.v1+json', manifests: [top]};
  const files = [
    ['blobs/', null, 0o755],
    ['blobs/sha256/', null, 0o755],
    ...[...blobs].map(([digest, data]) => [`blobs/sha256/${digest.slice('sha256:'.length)}`, data, 0o444]),
    ['index.json', Buffer.from(JSON.stringify(index)), 0o644],
    ['oci-layout', Buffer.from(JSON.stringify({imageLayoutVersion: '1.0.0'})), 0o444]
  ].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return gzipSync(tar(files));
}

/** A protobuf Timestamp of epoch ms as Go's encoding/json writes it (seconds and nanos, each left out when 0). */
function timestamp(ms) {
  const seconds = Math.floor(ms / 1000);
  const nanos = (ms % 1000) * 1e6;
  return {...(seconds ? {seconds} : {}), ...(nanos ? {nanos} : {})};
}

/** A ustar archive of [name, data (null: a directory), mode] entries, owner 0, time 0. */
function tar(files) {
  const parts = [];
  const octal = (n, width) => n.toString(8).padStart(width - 1, '0') + '\0';
  for (const [name, data, mode] of files) {
    const h = Buffer.alloc(512);
    h.write(name, 0, 100, 'utf8');
    h.write(octal(mode, 8), 100);
    h.write(octal(0, 8), 108);
    h.write(octal(0, 8), 116);
    h.write(octal(data ? data.length : 0, 12), 124);
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
