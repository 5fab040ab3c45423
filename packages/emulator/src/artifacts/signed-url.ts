import {createHmac, randomBytes, timingSafeEqual} from 'node:crypto';
import type {EmulatorClock} from '../clock.js';
import {BlobProblem} from './blob-problem.js';

/** What a signed URL allows: `cw` (create, write) for an upload, `r` for a download. */
export enum BlobPermission {
  Write = 'cw',
  Read = 'r'
}

export interface BlobSignerOpts {
  clock: EmulatorClock;
  /** HMAC key; default 32 random bytes. */
  secret?: Buffer;
}

/**
 * BlobSigner makes and checks the shared-access-signature URLs the results service hands out for a blob, in
 * Azure's shape (`?sv=…&sr=b&sp=…&se=…&sig=…`, the signature over the permissions, expiry and path), so that the
 * blob requests need no token: the URL is the credential, as with GitHub's storage accounts.
 */
export class BlobSigner {
  readonly #clock: EmulatorClock;
  readonly #secret: Buffer;

  constructor(opts: BlobSignerOpts) {
    this.#clock = opts.clock;
    this.#secret = opts.secret ?? randomBytes(32);
  }

  /** `base` + `path` with a signature valid for `ttlMs`. */
  sign(base: string, path: string, permission: BlobPermission, ttlMs: number): string {
    const se = new Date(this.#clock.now() + ttlMs).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const query = new URLSearchParams({sv: '2024-11-04', sr: 'b', sp: permission, se});
    query.set('sig', this.#signature(permission, se, path));
    return `${base}${path}?${query.toString()}`;
  }

  /** Throws a 403 BlobProblem unless `url` carries a valid, unexpired signature allowing `permission`. */
  verify(url: URL, permission: BlobPermission): void {
    const sp = url.searchParams.get('sp') ?? '';
    const se = url.searchParams.get('se') ?? '';
    const sig = url.searchParams.get('sig') ?? '';
    const expected = Buffer.from(this.#signature(sp, se, url.pathname));
    const given = Buffer.from(sig);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw new BlobProblem(403, 'AuthenticationFailed', 'Signature did not match the request.');
    }
    if (!(Date.parse(se) > this.#clock.now())) {
      throw new BlobProblem(403, 'AuthenticationFailed', 'Signed expiry time has passed.');
    }
    if (![...permission].every(p => sp.includes(p))) {
      throw new BlobProblem(
        403,
        'AuthorizationPermissionMismatch',
        'This request is not authorized to perform this operation using this permission.'
      );
    }
  }

  #signature(sp: string, se: string, path: string): string {
    return createHmac('sha256', this.#secret).update(`${sp}\n${se}\n${path}`).digest('base64');
  }
}
