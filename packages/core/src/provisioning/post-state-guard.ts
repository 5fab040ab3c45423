import {tmpdir} from 'node:os';
import {isAbsolute, relative, resolve} from 'node:path';
import type {Logger} from '../logger.js';

/** What newBuilderName makes (`remote-builder-<8 hex digits>`); the local fallback's prefix is longer. */
const BUILDER_PREFIX = 'remote-builder-';

export interface PostStateGuardOpts {
  logger: Logger;
  /** The step's own service URL (its api-url input, else REMOTE_BUILDER_API_URL); undefined when it has none. */
  apiUrl?: string;
  /** The step's temporary folder, RUNNER_TEMP (else the OS temp dir): main makes every folder inside it. */
  tempDir?: string;
}

/**
 * PostStateGuard checks what post reads from state before acting on it: the service URL is the step's own (the
 * key goes nowhere else), paths lie inside the step's temporary folder (nothing else is removed or run), builder
 * names are ours (no other builder is removed). Anything else is refused with a warning: main wrote none of it.
 */
export class PostStateGuard {
  readonly #logger: Logger;
  readonly #apiUrl?: string;
  readonly #tempDir: string;

  constructor(opts: PostStateGuardOpts) {
    this.#logger = opts.logger;
    this.#apiUrl = opts.apiUrl;
    this.#tempDir = resolve(opts.tempDir || tmpdir());
  }

  /** `url` when it is the step's own service URL, else undefined (warned). */
  apiUrl(url: string): string | undefined {
    if (this.#apiUrl !== undefined && url === this.#apiUrl) return url;
    this.#refuse(
      `the service URL "${url}"`,
      `it is not this step's (${this.#apiUrl ?? 'none'}); nothing is sent there. Tear its builders down in the web UI if they are yours`
    );
    return undefined;
  }

  /** `path` when it lies inside the step's temporary folder, else undefined (warned); '' stays ''. */
  path(what: string, path: string): string | undefined {
    if (path === '') return path;
    const rel = isAbsolute(path) ? relative(this.#tempDir, resolve(path)) : '';
    if (rel !== '' && !rel.startsWith('..') && !isAbsolute(rel)) return resolve(path);
    this.#refuse(
      `${what} "${path}"`,
      `it is not inside this step's temporary folder (${this.#tempDir}); nothing there is removed or run`
    );
    return undefined;
  }

  /** `name` when this step makes builders of that name (`prefix` + 8 hex digits), else undefined (warned). */
  builderName(name: string, prefix = BUILDER_PREFIX): string | undefined {
    if (name.startsWith(prefix) && /^[0-9a-f]{8}$/.test(name.slice(prefix.length))) return name;
    this.#refuse(`the buildx builder "${name}"`, 'this step makes no builder of that name; it is not removed');
    return undefined;
  }

  #refuse(what: string, why: string): void {
    this.#logger.warning(`Post refuses ${what} from the saved state: ${why}. Main wrote no such value.`);
  }
}
