import {randomBytes} from 'node:crypto';
import {
  closeSync,
  existsSync,
  fchmodSync,
  fsyncSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync
} from 'node:fs';
import {isAbsolute, join} from 'node:path';
import {errorMessage} from '../errors.js';
import type {NodeCertPaths} from './buildx-args.js';
import {formatPlatform, storePlatform, type StorePlatform} from './store-platform.js';

// buildx's store, as buildx v0.13.1 to v0.36.1 keep it (store/store.go, store/nodegroup.go, builder.Create,
// checked against a real `buildx create` of 0.29.1): the builder's record is `<configDir>/instances/<lower-cased
// name>`, the JSON of a NodeGroup (Go's json.Marshal: struct field order, map keys sorted, no trailing newline),
// written atomically with mode 0600. `create --append` adds one Node and, in NodeGroup.validateDuplicates, drops
// the new node's platforms from every other node (a nil list becomes []).

/** A remote-driver node as our `buildx create` argv describes it (createNodeArgs). */
export interface StoreNode {
  /** `--node`. */
  name: string;
  /** `tcp://host:port`. */
  endpoint: string;
  /** `--platform`, one entry each (none: the flag is omitted). */
  platforms: string[];
  certs: NodeCertPaths;
}

export type StoreAppend = {appended: true} | {appended: false; why: string};

export interface AppendNodesToStoreOpts {
  /** buildx's config dir (Buildx.configDir()). */
  configDir: string;
  /** The builder's name as `--name` gave it. */
  builder: string;
  /** The nodes created so far, in the order buildx added them. */
  existing: StoreNode[];
  /** The nodes to add, in order: one write, the record successive `create --append`s would leave. */
  nodes: StoreNode[];
  /** Replace `existing` (a placeholder's record) with `nodes`: the record their create and appends would leave. */
  replace?: boolean;
}

/** store.ValidateName: a builder or node name; buildx stores it lower-cased. */
const NAME = /^[a-zA-Z][a-zA-Z0-9._-]*$/;

interface StoreRecordNode {
  Name: string;
  Endpoint: string;
  Platforms: StorePlatform[] | null;
  DriverOpts: {cacert: string; cert: string; key: string};
  Flags: null;
  Files: null;
}

interface StoreRecord {
  Name: string;
  Driver: 'remote';
  Nodes: StoreRecordNode[];
  Dynamic: false;
}

/**
 * Appends `nodes` to the builder's record in buildx's store, writing the very record successive `buildx create
 * --append`s would leave, without a buildx process, in one write. Only when the record is exactly what our creates wrote for
 * `existing` and every value is one whose buildx form we are sure of; else writes nothing and says why (the
 * caller then runs `create --append`). Never throws.
 *
 * No flock (buildx locks `<configDir>/.lock` with flock(2), which Node has not): the builder's record is ours
 * (a name unique to the step), and the caller writes only while no buildx process of ours touches the
 * builder. Like buildx's Save, it then sets the builder's last activity (`activity/<name>`, what `buildx ls`
 * shows); that file failing to be written changes nothing else.
 */
/** Where buildx keeps builder `name`'s record: under its lower-cased name (store.ValidateName, every version). */
export function builderRecordPath(configDir: string, name: string): string {
  return join(configDir, 'instances', name.toLowerCase());
}

export function appendNodesToStore(opts: AppendNodesToStoreOpts): StoreAppend {
  const {configDir, builder, existing, nodes} = opts;
  if (!NAME.test(builder)) return refused(`"${builder}" is not a buildx builder name`);
  if (nodes.length === 0) return refused('no node to add');
  const path = builderRecordPath(configDir, builder);
  let expected: StoreRecord;
  let next: StoreRecord;
  try {
    expected = recordFor(builder, existing);
    next = opts.replace ? {...expected, Nodes: []} : expected;
    for (const node of nodes) {
      const added = recordNode(node);
      checkNewNode(added, next);
      next = {...next, Nodes: joinNode(next.Nodes, added)};
    }
  } catch (e) {
    return refused(errorMessage(e));
  }
  // buildx would load the default buildkitd config into the new node, which the remote driver refuses.
  if (existsSync(join(configDir, 'buildkitd.default.toml'))) {
    return refused(`${join(configDir, 'buildkitd.default.toml')} exists: buildx would give the node that config`);
  }
  let text: string;
  try {
    const owner = statSync(path).uid;
    // buildx run through sudo gives its files to the sudo user (confutil's chowner): leave those to buildx.
    if (process.getuid && owner !== process.getuid()) return refused(`${path} belongs to uid ${owner}, not to us`);
    text = readFileSync(path, 'utf8');
  } catch (e) {
    return refused(`cannot read ${path}: ${errorMessage(e)}`);
  }
  const differs = difference(text, expected);
  if (differs) return refused(`${path} is not the record our creates wrote: ${differs}`);
  const written = atomicWrite(configDir, path, goJson(next));
  // txn.UpdateLastActivity: the time in Go's RFC 3339 (UTC, whole seconds), under the name as created.
  if (written.appended) atomicWrite(configDir, join(configDir, 'activity', builder), rfc3339(new Date()));
  return written;
}

/** Go's time.RFC3339 of a UTC time: `2006-01-02T15:04:05Z`. */
function rfc3339(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function refused(why: string): StoreAppend {
  return {appended: false, why};
}

/** The record our create and appends of `nodes`, in order, left. Throws (why) for a node we cannot say. */
function recordFor(builder: string, nodes: StoreNode[]): StoreRecord {
  if (nodes.length === 0) throw new Error('no node was created yet');
  let joined: StoreRecordNode[] = [];
  for (const n of nodes) joined = joinNode(joined, recordNode(n));
  return {Name: builder, Driver: 'remote', Nodes: joined, Dynamic: false};
}

/** Node `n` as buildx's NodeGroup.Update stores it for our argv; throws (why) when unsure. */
function recordNode(n: StoreNode): StoreRecordNode {
  if (!NAME.test(n.name)) throw new Error(`node name "${n.name}" is not one buildx accepts`);
  if (!/^tcp:\/\/\S+$/.test(n.endpoint) || !plain(n.endpoint)) {
    throw new Error(`node ${n.name}: endpoint ${JSON.stringify(n.endpoint)} is not a tcp:// address`);
  }
  const platforms = n.platforms.map(p => {
    const stored = storePlatform(p);
    if (!stored) throw new Error(`node ${n.name}: platform "${p}" is not one whose stored form we know`);
    return stored;
  });
  for (const [key, value] of Object.entries(n.certs)) {
    // The remote driver refuses a relative path; a quote or line break would go through CSV quoting.
    if (!isAbsolute(value) || value.includes('"') || !plain(value)) {
      throw new Error(`node ${n.name}: ${key} path ${JSON.stringify(value)} is not one we write as buildx does`);
    }
  }
  return {
    Name: n.name.toLowerCase(),
    Endpoint: n.endpoint,
    Platforms: platforms.length > 0 ? platforms : null,
    DriverOpts: {cacert: n.certs.cacert, cert: n.certs.cert, key: n.certs.key},
    // As every node of a remote builder has them: its driver refuses buildkitd flags and config files, so a
    // create that stored some failed and was rolled back.
    Flags: null,
    Files: null
  };
}

/** What buildx refuses, or does otherwise than append: a node of that name (an update), one at that endpoint. */
function checkNewNode(added: StoreRecordNode, record: StoreRecord): void {
  if (record.Nodes.some(n => n.Name === added.Name)) {
    throw new Error(`the builder has a node named ${added.Name} already`);
  }
  if (record.Nodes.some(n => n.Endpoint === added.Endpoint)) {
    throw new Error(`the builder has a node at ${added.Endpoint} already`);
  }
}

/** NodeGroup.Update's append: the new node last, its platforms dropped from the others (validateDuplicates). */
function joinNode(nodes: StoreRecordNode[], added: StoreRecordNode): StoreRecordNode[] {
  const taken = new Set((added.Platforms ?? []).map(formatPlatform));
  const others = nodes.map(n => ({...n, Platforms: (n.Platforms ?? []).filter(p => !taken.has(formatPlatform(p)))}));
  return [...others, added];
}

/** No control character nor lone surrogate: a string Go's JSON and ours write alike. */
function plain(s: string): boolean {
  const lone = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
  return ![...s].some(c => c < ' ') && !lone.test(s);
}

const NODE_KEYS = ['Name', 'Endpoint', 'Platforms', 'DriverOpts', 'Flags', 'Files'];
const RECORD_KEYS = ['Name', 'Driver', 'Nodes', 'Dynamic'];

/** How the record `text` differs from `expected` (one sentence), or undefined when it is the same. */
function difference(text: string, expected: StoreRecord): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return 'it is not JSON';
  }
  if (!isObject(parsed)) return 'it is not a JSON object';
  const keys = sameKeys(parsed, RECORD_KEYS);
  if (keys) return keys;
  for (const key of ['Name', 'Driver', 'Dynamic'] as const) {
    if (parsed[key] !== expected[key]) {
      return `${key} is ${JSON.stringify(parsed[key])}, not ${JSON.stringify(expected[key])}`;
    }
  }
  const nodes = parsed['Nodes'];
  if (!Array.isArray(nodes) || nodes.length !== expected.Nodes.length) {
    return `it has ${Array.isArray(nodes) ? nodes.length : 'no'} nodes, not ${expected.Nodes.length}`;
  }
  for (const [i, want] of expected.Nodes.entries()) {
    const got: unknown = nodes[i];
    if (!isObject(got)) return `node ${i + 1} is not an object`;
    const nodeKeys = sameKeys(got, NODE_KEYS);
    if (nodeKeys) return `node ${i + 1}: ${nodeKeys}`;
    for (const key of NODE_KEYS) {
      const [a, b] = [JSON.stringify(got[key]), JSON.stringify(want[key as keyof StoreRecordNode])];
      if (a !== b) return `node ${i + 1} (${want.Name}) has ${key} ${a}, not ${b}`;
    }
  }
  return undefined;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Why `o` has not exactly `keys` (in any order), or undefined. */
function sameKeys(o: Record<string, unknown>, keys: string[]): string | undefined {
  const unknown = Object.keys(o).filter(k => !keys.includes(k));
  if (unknown.length > 0) return `unknown key ${unknown.join(', ')}`;
  const missing = keys.filter(k => !(k in o));
  return missing.length > 0 ? `no key ${missing.join(', ')}` : undefined;
}

/** JSON as Go's json.Marshal writes it: HTML characters and the JS line separators escaped (strings are checked plain). */
function goJson(v: unknown): string {
  return JSON.stringify(v).replace(/[<>&\u2028\u2029]/g, c => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * Writes `path` atomically with mode 0600: a temp file in the config dir, not in instances/ (where buildx
 * reads every file as a builder), then a rename. Leaves no temp file.
 */
function atomicWrite(configDir: string, path: string, text: string): StoreAppend {
  const temp = join(configDir, `.instance-${process.pid}-${randomBytes(6).toString('hex')}.tmp`);
  try {
    const fd = openSync(temp, 'wx', 0o600);
    try {
      fchmodSync(fd, 0o600);
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
    return {appended: true};
  } catch (e) {
    rmSync(temp, {force: true});
    return refused(`cannot write ${path}: ${errorMessage(e)}`);
  }
}
