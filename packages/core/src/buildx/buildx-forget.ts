import {existsSync, readdirSync, readFileSync, rmSync} from 'node:fs';
import {join} from 'node:path';
import {errorMessage} from '../errors.js';
import type {Logger} from '../logger.js';
import {builderRecordPath} from './buildx-store.js';

/** A builder name buildx accepts (store.ValidateName); nothing else is ever a path in its store. */
export const BUILDX_NAME = /^[a-zA-Z][a-zA-Z0-9._-]*$/;

/**
 * Deletes the builder's files from buildx's store without asking buildx, as buildx's own removal does
 * (store.Txn.Remove and localstate.RemoveBuilder, 0.13 to 0.36): `instances/<name>`, `activity/<name>`,
 * `refs/<name>/` and the bake groups in `refs/__group__/` all of whose refs are the builder's, and also
 * the `defaults/*` entries naming it (which buildx leaves). For a builder buildx will not remove: an rm
 * that stalls on an endpoint that no longer answers (docker/setup-buildx-action#615), or a broken builder
 * on buildx < 0.36, in buildx's directory `dir`. True when anything was deleted; never throws (what cannot be
 * deleted is logged).
 */
export function forgetBuilder(dir: string, name: string, logger: Logger): boolean {
  if (!BUILDX_NAME.test(name)) return false;
  // buildx stores a builder under its lower-cased name (store.ValidateName).
  const key = name.toLowerCase();
  let removed = false;
  const remove = (path: string): void => {
    try {
      if (!existsSync(path)) return;
      rmSync(path, {recursive: true, force: true});
      removed = true;
    } catch (e) {
      logger.debug(`Buildx.forget: cannot remove ${path}: ${errorMessage(e)}`);
    }
  };
  remove(builderRecordPath(dir, name));
  remove(join(dir, 'activity', key));
  const groups = join(dir, 'refs', '__group__');
  for (const group of entries(groups)) {
    const refs = readJson(join(groups, group))?.['Refs'];
    if (Array.isArray(refs) && refs.length > 0 && refs.every(r => typeof r === 'string' && r.startsWith(`${key}/`))) {
      remove(join(groups, group));
    }
  }
  remove(join(dir, 'refs', key));
  for (const entry of entries(join(dir, 'defaults'))) {
    const path = join(dir, 'defaults', entry);
    if (readText(path)?.trim() === key) remove(path);
  }
  return removed;
}

/** What `read` returns, or `fallback` when it throws (a missing or unreadable file, bad JSON). */
function orElse<T>(read: () => T, fallback: T): T {
  try {
    return read();
  } catch {
    return fallback;
  }
}

/** The names in a directory; none when it cannot be read. */
const entries = (dir: string): string[] => orElse(() => readdirSync(dir), []);

const readText = (path: string): string | undefined => orElse(() => readFileSync(path, 'utf8'), undefined);

function readJson(path: string): Record<string, unknown> | undefined {
  const v: unknown = orElse(() => JSON.parse(readText(path) ?? '') as unknown, undefined);
  return typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : undefined;
}
