/** An API key the emulator accepts, with its scopes (spec §5). */
export interface ApiKey {
  key: string;
  scopes: string[];
}

/** The key used when none is configured. */
export const DEFAULT_API_KEYS: readonly ApiKey[] = [{key: 'emulator-key', scopes: ['ci', 'cache', 'builders']}];

/** Scope the builder and builder-profile endpoints need. Spec §5.4 does not show it; the emulator's choice. */
export const BUILDERS_SCOPE = 'builders';

/** Result of checking one request's credentials. */
export type AuthResult =
  {ok: true; key: ApiKey} | {ok: false; status: 401 | 403; code: 'unauthorized' | 'forbidden'; message: string};

export interface ApiKeyAuthOpts {
  keys: readonly ApiKey[];
}

/**
 * ApiKeyAuth checks `Authorization: Bearer <key>` headers. The emulator's choice for scopes (spec §5.4 says
 * "not shown"): a key may call the builder endpoints when its scopes include 'builders', or when it has no
 * scope restriction, that is an empty scope list or the wildcard scope '*'.
 */
export class ApiKeyAuth {
  readonly #keys: Map<string, ApiKey>;

  constructor(opts: ApiKeyAuthOpts) {
    this.#keys = new Map();
    for (const k of opts.keys) {
      if (typeof k?.key !== 'string' || k.key === '' || /\s/.test(k.key)) {
        throw new Error('Invalid API key: "key" must be a non-empty string without spaces');
      }
      if (!Array.isArray(k.scopes) || !k.scopes.every(s => typeof s === 'string')) {
        throw new Error('Invalid API key: "scopes" must be a list of strings');
      }
      this.#keys.set(k.key, {key: k.key, scopes: [...k.scopes]});
    }
  }

  /** Checks the header value against the keys and the needed scope (every one of them, when a list). */
  check(authorization: string | undefined, scope: string | readonly string[]): AuthResult {
    const match = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization ?? '');
    if (!match) {
      return {
        ok: false,
        status: 401,
        code: 'unauthorized',
        message: 'Missing "Authorization: Bearer <API key>" header'
      };
    }
    const key = this.#keys.get(match[1] as string);
    if (!key) return {ok: false, status: 401, code: 'unauthorized', message: 'Unknown API key'};
    const missing = (typeof scope === 'string' ? [scope] : scope).filter(s => !hasScope(key, s));
    if (missing.length > 0) {
      const names = missing.map(s => `"${s}"`).join(' and ');
      return {
        ok: false,
        status: 403,
        code: 'forbidden',
        message: `API key lacks the ${names} scope${missing.length > 1 ? 's' : ''}`
      };
    }
    return {ok: true, key};
  }
}

/** True when the key carries `scope` or has no scope restriction. */
export function hasScope(key: ApiKey, scope: string): boolean {
  return key.scopes.length === 0 || key.scopes.includes('*') || key.scopes.includes(scope);
}
