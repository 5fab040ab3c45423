import type {ApiInputNames} from './input-names.js';
import type {CallSpec} from './call-spec.js';

const HINT_403 = 'the API key lacks the scopes this call needs';
const HINT_429 = 'rate limited by the service; try again later';
const HINT_5XX = 'the service failed; try again later';

/** What to do about a non-2xx answer to `spec`, in the words of the API URL and key settings `names`. */
export function statusHint(
  spec: CallSpec,
  status: number,
  names: ApiInputNames,
  location?: string
): string | undefined {
  if (status >= 300 && status <= 399) {
    // Redirects are not followed: the API key must never travel to an address the user did not give.
    const to = location ? `redirects to ${location}` : 'is a redirect without a Location';
    return `the answer ${to}: redirects are not followed, so the API key is never sent elsewhere; set ${names.apiUrl} to the service's API base${location ? ' (the address it points to, if you trust it)' : ''}`;
  }
  const hint401 = `check the ${names.apiKey}: it is missing, wrong or revoked`;
  if (status === 401) return spec.scopeHint ? `${hint401}; ${spec.scopeHint}` : hint401;
  if (status === 403) return spec.scopeHint ? `${HINT_403}: ${spec.scopeHint}` : HINT_403;
  if (spec.unknownOutcomeHint && status >= 500 && status !== 501 && status !== 503 && status !== 505) {
    return `${HINT_5XX}; ${spec.unknownOutcomeHint}`;
  }
  if (status === 404) return spec.notFoundHint;
  if (status === 429) return HINT_429;
  if (status >= 500) return HINT_5XX;
  return undefined;
}

/**
 * A 404 from a base URL that ends in /api/v1. The spec gives every path as `/api/v1/…` relative to the
 * base URL, so such a base doubles it (`/api/v1/api/v1/…`). The URL is not rewritten: nothing in the spec
 * rules out a service mounted below a path that ends in /api/v1, so it is used as given and only a 404
 * is explained (ahead of the call's own 404 hint, which it makes moot).
 */
export function doubledPrefixHint(base: string, names: Readonly<ApiInputNames>): string | undefined {
  const url = new URL(base);
  if (!/\/api\/v1$/.test(url.pathname)) return undefined;
  const root = base.slice(0, -'/api/v1'.length);
  return `${names.apiUrl} ${base} ends in /api/v1, which every endpoint path already starts with, so this request went to ${url.pathname}/api/v1/…: drop the suffix and use ${root}`;
}
