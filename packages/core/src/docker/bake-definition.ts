import {parseCsv} from './csv.js';

/** An attestation, exporter or cache entry of a bake target as `type=…,key=value` or its parsed form. */
export interface BakeEntry {
  type: string;
  [key: string]: string;
}

/** One target of a resolved bake definition (`docker buildx bake --print`); fields as buildx prints them. */
export interface BakeTarget {
  context?: string;
  dockerfile?: string;
  platforms?: string[];
  tags?: string[];
  /** Parsed by parseBakeDefinition (buildx < 0.20 prints strings, later ones objects). */
  attest?: BakeEntry[];
  /** Parsed by parseBakeDefinition. */
  output?: BakeEntry[];
  [key: string]: unknown;
}

/** A resolved bake definition: `{"group": {...}, "target": {...}}`. */
export interface BakeDefinition {
  group?: Record<string, {targets?: string[]}>;
  target: Record<string, BakeTarget>;
}

/**
 * Parses `docker buildx bake --print` output like docker's Bake.parseDefinition (@docker/actions-toolkit
 * src/buildx/bake.ts): `attest` and `output` entries become objects whether buildx printed them as strings
 * or as objects (composable attributes, https://github.com/docker/buildx/pull/2758). Throws on output that
 * is not a definition.
 */
export function parseBakeDefinition(text: string): BakeDefinition {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new Error(`the bake definition is not JSON: ${(e as Error).message}`);
  }
  if (!isObject(parsed) || !isObject(parsed['target'])) {
    throw new Error('the bake definition has no "target" object');
  }
  const target: Record<string, BakeTarget> = {};
  for (const [name, raw] of Object.entries(parsed['target'])) {
    if (!isObject(raw)) throw new Error(`target "${name}" of the bake definition is not an object`);
    const t: BakeTarget = {...raw};
    if (Array.isArray(raw['attest'])) t.attest = raw['attest'].map(parseAttestEntry);
    if (Array.isArray(raw['output'])) t.output = raw['output'].map(parseExportEntry);
    if (raw['platforms'] !== undefined) t.platforms = stringList(raw['platforms']);
    if (raw['tags'] !== undefined) t.tags = stringList(raw['tags']);
    target[name] = t;
  }
  const group = isObject(parsed['group']) ? (parsed['group'] as BakeDefinition['group']) : undefined;
  return {...(group ? {group} : {}), target};
}

/** `type=provenance,mode=max` (or an object) → `{type: 'provenance', mode: 'max'}`. */
export function parseAttestEntry(item: unknown): BakeEntry {
  if (isObject(item)) return entryOf(item);
  const entry: BakeEntry = {type: ''};
  for (const [key, value] of fields(String(item))) entry[key] = value;
  return entry;
}

/**
 * An exporter (`output`) entry: `type=…,dest=…`, an object, or a bare path (local exporter; `-` is tar),
 * as docker's Bake.parseExportEntry reads it.
 */
export function parseExportEntry(item: unknown): BakeEntry {
  if (isObject(item)) return entryOf(item);
  const text = String(item);
  const raw = rawFields(text);
  if (raw.length === 1 && raw[0] === text && !text.startsWith('type=')) {
    return {type: text === '-' ? 'tar' : 'local', dest: text};
  }
  const entry: BakeEntry = {type: ''};
  for (const [key, value] of fields(text)) entry[key] = value;
  return entry;
}

/** Every exporter of every target (docker's Bake.exporters). */
export function bakeExporters(def: BakeDefinition): BakeEntry[] {
  return Object.values(def.target).flatMap(t => t.output ?? []);
}

/** `load: true`, or a target exporting to the docker image store (docker's Bake.hasDockerExporter). */
export function bakeHasDockerExporter(def: BakeDefinition, load: boolean): boolean {
  return load || bakeExporters(def).some(e => e.type === 'docker');
}

/** True when the target's `attest` already holds a provenance attestation. */
export function targetHasProvenance(target: BakeTarget): boolean {
  return (target.attest ?? []).some(a => a.type === 'provenance');
}

/**
 * A remote bake definition: an http(s) URL, or a `git://`, `github.com/` or `git@` reference
 * (docker's Util.isValidRef).
 */
export function isRemoteBakeRef(ref: string): boolean {
  try {
    const url = new URL(ref);
    if (url.protocol === 'http:' || url.protocol === 'https:') return true;
  } catch {
    // not a URL
  }
  return ['git://', 'github.com/', 'git@'].some(prefix => ref.startsWith(prefix));
}

/** What `docker buildx bake --print` is given to resolve the definition (docker's BakeCmdOpts). */
export interface BakePrintOpts {
  files: string[];
  /** Remote definition or local source; '' for none. */
  source: string;
  set: string[];
  allow: string[];
  call: string;
  load: boolean;
  noCache: boolean;
  provenance: string;
  push: boolean;
  sbom: string;
  targets: string[];
}

/**
 * `docker buildx bake … --print …` argv (without `docker buildx`) in the order docker's Bake.getDefinition
 * builds it: the one remote definition among `files` and `source` comes first, every other one becomes a
 * `--file`. Throws when two remote definitions are given, as docker does.
 */
export function bakePrintArgs(opts: BakePrintOpts): string[] {
  const args = ['bake'];
  let remote: string | undefined;
  const files: string[] = [];
  for (const source of [...opts.files, opts.source].map(s => s.trim())) {
    if (source === '') continue;
    if (!isRemoteBakeRef(source)) {
      files.push(source);
      continue;
    }
    if (remote !== undefined) {
      throw new Error(`only one remote bake definition can be given, got ${remote} and ${source}`);
    }
    remote = source;
  }
  if (remote !== undefined) args.push(remote);
  files.forEach(f => args.push('--file', f));
  opts.set.forEach(s => args.push('--set', s));
  opts.allow.forEach(a => args.push('--allow', a));
  if (opts.call) args.push('--call', opts.call);
  if (opts.load) args.push('--load');
  if (opts.noCache) args.push('--no-cache');
  if (opts.provenance) args.push('--provenance', opts.provenance);
  if (opts.push) args.push('--push');
  if (opts.sbom) args.push('--sbom', opts.sbom);
  return [...args, '--print', ...opts.targets];
}

/** The platforms a target builds for; [] when it names none (it builds for the builder's default). */
export function targetPlatforms(target: BakeTarget): string[] {
  return (target.platforms ?? [])
    .flatMap(p => p.split(','))
    .map(p => p.trim())
    .filter(p => p !== '');
}

/** The first CSV record; a stray quote (which docker's strict parser rejects) is read relaxed. */
function rawFields(text: string): string[] {
  try {
    return parseCsv(text, {skipEmptyLines: true})[0] ?? [];
  } catch {
    return parseCsv(text, {skipEmptyLines: true, relaxQuotes: true, quote: false})[0] ?? [];
  }
}

/** `key=value` fields split at the first '=' and trimmed. */
function fields(text: string): [string, string][] {
  return rawFields(text).map(field => {
    const at = field.indexOf('=', 1);
    return at < 0 ? [field.trim(), ''] : [field.slice(0, at).trim(), field.slice(at + 1).trim()];
  });
}

function entryOf(obj: Record<string, unknown>): BakeEntry {
  const entry: BakeEntry = {type: ''};
  for (const [k, v] of Object.entries(obj)) entry[k] = typeof v === 'string' ? v : JSON.stringify(v);
  return entry;
}

function stringList(v: unknown): string[] {
  if (Array.isArray(v)) return v.map(String);
  return typeof v === 'string' ? [v] : [];
}

function isObject(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}
