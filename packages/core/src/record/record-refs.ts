import {readdirSync, statSync} from 'node:fs';
import {join} from 'node:path';
import type {BuildMetadata} from '../docker/build-result.js';

/** One build's record on one node: where `buildx history` finds it. */
export interface RecordRef {
  builder: string;
  node: string;
  /** The history ref (BuildKit's build id), as `buildx history` takes it. */
  ref: string;
}

/** buildx's metadata key for a build's ref: `<builder>/<node>/<ref>`. */
const REF_KEY = 'buildx.build.ref';

/** A ref file name buildx writes (identity.NewID: base32 lower case); nothing else is read as one. */
const REF_NAME = /^[a-z0-9]{8,64}$/;

/** `<builder>/<node>/<ref>` read, or undefined when it is not one. */
export function parseBuildRef(value: unknown): RecordRef | undefined {
  if (typeof value !== 'string') return undefined;
  const parts = value.split('/');
  if (parts.length !== 3 || parts.some(p => p === '')) return undefined;
  const [builder, node, ref] = parts as [string, string, string];
  return {builder, node, ref};
}

/**
 * The refs a metadata file names: build-push's (`buildx.build.ref` at the top) or bake's (one per target),
 * on builder `builder` only.
 */
export function refsFromMetadata(metadata: BuildMetadata | undefined, builder: string): RecordRef[] {
  if (!metadata) return [];
  const values = [metadata, ...Object.values(metadata)].flatMap(v =>
    v !== null && typeof v === 'object' ? [(v as Record<string, unknown>)[REF_KEY]] : []
  );
  return values.map(parseBuildRef).filter((r): r is RecordRef => r !== undefined && r.builder === builder);
}

/**
 * The refs buildx saved for builder `builder` since `sinceMs` (epoch ms; a second earlier is accepted for
 * file systems with coarse times): buildx writes `refs/<builder>/<node>/<ref>` in its config dir for every
 * node a build runs on, before the build starts, so a failed build and every node of a multi-node build are
 * there, oldest first. None when the folder cannot be read.
 */
export function refsFromFolder(configDir: string, builder: string, sinceMs: number): RecordRef[] {
  const dir = join(configDir, 'refs', builder);
  const found: {r: RecordRef; at: number}[] = [];
  for (const node of list(dir)) {
    for (const ref of list(join(dir, node))) {
      if (!REF_NAME.test(ref)) continue;
      const at = mtime(join(dir, node, ref));
      if (at !== undefined && at >= sinceMs - 1000) found.push({r: {builder, node, ref}, at});
    }
  }
  return found.sort((a, b) => a.at - b.at).map(f => f.r);
}

/** `refs` without repeats (the same ref on the same node), in their first order. */
export function uniqueRefs(refs: RecordRef[]): RecordRef[] {
  const seen = new Set<string>();
  return refs.filter(r => {
    const key = `${r.builder}/${r.node}/${r.ref}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function list(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function mtime(path: string): number | undefined {
  try {
    const s = statSync(path);
    return s.isFile() ? s.mtimeMs : undefined;
  } catch {
    return undefined;
  }
}
