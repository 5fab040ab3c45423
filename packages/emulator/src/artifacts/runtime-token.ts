import {createHmac, randomBytes, timingSafeEqual} from 'node:crypto';
import type {EmulatorClock} from '../clock.js';

/** The backend ids a runtime token's `Actions.Results` scope grants, as @actions/artifact reads them. */
export interface BackendIds {
  workflowRunBackendId: string;
  workflowJobRunBackendId: string;
}

/** Why a token was refused; the service answers 401 `unauthenticated` with this message. */
export class TokenError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TokenError';
  }
}

export interface RuntimeTokensOpts {
  clock: EmulatorClock;
  /** HMAC key of the tokens; default 32 random bytes (tokens of another emulator are refused). */
  secret?: Buffer;
}

/** Default lifetime of a minted token: 6 hours, a hosted job's longest run (the runner's token lasts as long). */
export const DEFAULT_TOKEN_TTL_MS = 6 * 60 * 60 * 1000;

/**
 * RuntimeTokens mints and checks the job's ACTIONS_RUNTIME_TOKEN as the runner gets it: a JWT whose `scp`
 * claim holds `Actions.Results:<workflow run backend id>:<workflow job run backend id>` (what
 * @actions/artifact's getBackendIdsFromToken reads). Signed with HS256 by the emulator (GitHub signs with its
 * own key); checked for signature, expiry and that scope.
 */
export class RuntimeTokens {
  readonly #clock: EmulatorClock;
  readonly #secret: Buffer;

  constructor(opts: RuntimeTokensOpts) {
    this.#clock = opts.clock;
    this.#secret = opts.secret ?? randomBytes(32);
  }

  /** A token for one job of a run, valid `ttlMs` from now. */
  mint(ids: BackendIds, ttlMs = DEFAULT_TOKEN_TTL_MS): string {
    const now = Math.floor(this.#clock.now() / 1000);
    const header = encode({typ: 'JWT', alg: 'HS256'});
    const payload = encode({
      nameid: 'emulator-runner',
      scp: `Actions.GenericRead:${ids.workflowRunBackendId} Actions.Results:${ids.workflowRunBackendId}:${ids.workflowJobRunBackendId} Actions.UploadArtifacts:${ids.workflowRunBackendId}:${ids.workflowJobRunBackendId}`,
      iss: 'remote-builder-emulator',
      aud: 'vso:remote-builder-emulator',
      iat: now,
      nbf: now,
      exp: now + Math.floor(ttlMs / 1000)
    });
    return `${header}.${payload}.${this.#sign(`${header}.${payload}`)}`;
  }

  /** The backend ids of an `Authorization` header's bearer token; throws TokenError when it is not one of ours. */
  verify(authorization: string | undefined): BackendIds {
    const match = /^Bearer (\S+)$/.exec(authorization ?? '');
    if (!match) throw new TokenError('missing bearer token (Authorization: Bearer <ACTIONS_RUNTIME_TOKEN>)');
    const parts = (match[1] as string).split('.');
    if (parts.length !== 3) throw new TokenError('the bearer token is not a JWT');
    const [header, payload, signature] = parts as [string, string, string];
    const expected = Buffer.from(this.#sign(`${header}.${payload}`));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw new TokenError('the token signature is not valid');
    }
    const claims = decode(payload);
    if (typeof claims.exp !== 'number' || claims.exp * 1000 <= this.#clock.now()) {
      throw new TokenError('the token has expired');
    }
    for (const scope of String(claims.scp ?? '').split(' ')) {
      const [name, run, job, ...rest] = scope.split(':');
      if (name === 'Actions.Results' && run && job && rest.length === 0) {
        return {workflowRunBackendId: run, workflowJobRunBackendId: job};
      }
    }
    throw new TokenError('the token has no Actions.Results scope');
  }

  #sign(data: string): string {
    return createHmac('sha256', this.#secret).update(data).digest('base64url');
  }
}

function encode(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

function decode(part: string): Record<string, unknown> {
  try {
    const value = JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as unknown;
    if (typeof value === 'object' && value !== null) return value as Record<string, unknown>;
  } catch {
    // Refused below.
  }
  throw new TokenError('the token payload is not JSON');
}
