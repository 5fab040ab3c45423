import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync
} from 'node:fs';
import {homedir} from 'node:os';
import {dirname, join} from 'node:path';
import type {StateStore} from '@remote-builder-actions/core';
import {describeFsError, isFsError} from './fs-errors.js';

/** The key of the state file's creation time (ISO 8601), beside the keys core saves. */
export const CREATED_AT = 'createdAt';

/** How to put the state somewhere else, appended to file-system errors. */
export const STATE_WHERE = 'set XDG_STATE_HOME, or pass --state-file and --cert-dir, to keep the state elsewhere';

/**
 * Where `builder up` keeps its state and certificates: `$XDG_STATE_HOME/remote-builder`, else
 * `$HOME/.local/state/remote-builder`.
 */
export function defaultStateDir(env: NodeJS.ProcessEnv): string {
  const xdg = env['XDG_STATE_HOME']?.trim();
  if (xdg) return join(xdg, 'remote-builder');
  const home = env['HOME']?.trim() || homedir();
  return join(home, '.local', 'state', 'remote-builder');
}

/** The state file of the builder named `name` in `dir`. */
export function stateFileOf(dir: string, name: string): string {
  return join(dir, `${name}.json`);
}

/** Names of the builders with a state file in `dir` (sorted); [] when the folder does not exist. */
export function listStateNames(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return fsStep(() => readdirSync(dir))
    .filter(f => f.endsWith('.json'))
    .map(f => f.slice(0, -'.json'.length))
    .sort();
}

/**
 * FileStateStore is core's StateStore on a JSON file (mode 0600), written atomically on every save, so
 * `builder down` in another process finds what `builder up` assigned even if `up` was killed. It holds what
 * core saves (builder ids, buildx name, certificate folder, API URL), and when the file was first written
 * (CREATED_AT, for the age `builder ls` shows): nothing secret.
 */
export class FileStateStore implements StateStore {
  readonly #now: () => number;

  constructor(
    readonly path: string,
    opts: {now?: () => number} = {}
  ) {
    this.#now = opts.now ?? Date.now;
  }

  save(key: string, value: string): void {
    const data = this.#read();
    data[CREATED_AT] ??= new Date(this.#now()).toISOString();
    let parsed: unknown = value;
    try {
      parsed = JSON.parse(value);
    } catch {
      // Not JSON: kept as a string.
    }
    data[key] = parsed;
    fsStep(() => {
      mkdirSync(dirname(this.path), {recursive: true, mode: 0o700});
      const tmp = `${this.path}.${process.pid}.tmp`;
      writeFileSync(tmp, `${JSON.stringify(data, null, 2)}\n`, {mode: 0o600});
      chmodSync(tmp, 0o600);
      renameSync(tmp, this.path);
    });
  }

  get(key: string): string {
    const v = this.#read()[key];
    if (v === undefined) return '';
    return typeof v === 'string' ? v : JSON.stringify(v);
  }

  /** When the file was first written (an older file without it: its last change); undefined when there is none. */
  createdAt(): Date | undefined {
    if (!this.exists()) return undefined;
    const at = this.#read()[CREATED_AT];
    const date = typeof at === 'string' ? new Date(at) : undefined;
    return date && !Number.isNaN(date.getTime()) ? date : fsStep(() => statSync(this.path).mtime);
  }

  exists(): boolean {
    return existsSync(this.path);
  }

  remove(): void {
    fsStep(() => {
      try {
        rmSync(this.path, {force: true});
      } catch (e) {
        // A file where a folder of the path should be: there is no state file to remove.
        if ((e as NodeJS.ErrnoException).code !== 'ENOTDIR') throw e;
      }
    });
  }

  #read(): Record<string, unknown> {
    if (!existsSync(this.path)) return {};
    const text = fsStep(() => readFileSync(this.path, 'utf8'));
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      throw new Error(`${this.path} is not JSON: remove it, or fix it by hand`);
    }
    if (typeof data !== 'object' || data === null || Array.isArray(data)) {
      throw new Error(`${this.path} is not a state file (expected a JSON object)`);
    }
    return data as Record<string, unknown>;
  }
}

/** Runs a file operation; a file-system error is rethrown naming the path and what to do about it. */
function fsStep<T>(op: () => T): T {
  try {
    return op();
  } catch (e) {
    if (isFsError(e)) throw new Error(describeFsError(e, STATE_WHERE), {cause: e});
    throw e;
  }
}
