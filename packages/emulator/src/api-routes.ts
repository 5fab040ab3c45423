import {ApiKeyAuth, BUILDERS_SCOPE} from './auth.js';
import type {BuilderRegistry} from './builder-registry.js';
import {CI_SCOPES, isCiRoute} from './ci-route-names.js';
import {type CiApi, CI_ROUTES} from './ci-routes.js';
import type {EmulatorClock} from './clock.js';
import {apiError, type HttpResult, isJsonContentType, json, parseJson} from './http.js';
import {DEFAULT_PER_PAGE, type ProfileCatalog} from './profiles.js';
import type {ApiRouteName} from './request-log.js';

/** The result of matching a method and path against the service routes. */
export type RouteMatch =
  | {kind: 'route'; route: Exclude<ApiRouteName, 'unknown'>; id?: string}
  | {kind: 'not-found'}
  | {kind: 'method-not-allowed'; allow: string};

const ROUTES: {method: string; pattern: RegExp; route: Exclude<ApiRouteName, 'unknown'>}[] = [
  {method: 'POST', pattern: /^\/api\/v1\/builders\/assign$/, route: 'assign'},
  {method: 'GET', pattern: /^\/api\/v1\/builders\/([^/]+)\/details$/, route: 'details'},
  {method: 'DELETE', pattern: /^\/api\/v1\/builders\/([^/]+)\/teardown$/, route: 'teardown'},
  {method: 'GET', pattern: /^\/api\/v1\/builder-profiles$/, route: 'profiles'},
  {method: 'POST', pattern: /^\/api\/v1\/builder-profiles\/([^/]+)\/cache\/reset$/, route: 'cache-reset'},
  ...CI_ROUTES
];

/** Matches a request to a service route. */
export function matchRoute(method: string, pathname: string): RouteMatch {
  const allowed: string[] = [];
  for (const r of ROUTES) {
    const m = r.pattern.exec(pathname);
    if (!m) continue;
    if (r.method !== method) {
      allowed.push(r.method);
      continue;
    }
    if (m[1] === undefined) return {kind: 'route', route: r.route};
    try {
      return {kind: 'route', route: r.route, id: decodeURIComponent(m[1])};
    } catch {
      return {kind: 'not-found'};
    }
  }
  if (allowed.length > 0) return {kind: 'method-not-allowed', allow: allowed.join(', ')};
  return {kind: 'not-found'};
}

/** One API request, as the handlers see it. */
export interface ApiRequest {
  method: string;
  url: URL;
  headers: {authorization?: string; 'content-type'?: string};
  body: Buffer;
}

/** What a request is about: used for the request log and fault matching before the request is handled. */
export interface RequestSubject {
  route: ApiRouteName;
  builderId?: string;
  profile?: string;
}

export interface ServiceApiOpts {
  auth: ApiKeyAuth;
  profiles: ProfileCatalog;
  registry: BuilderRegistry;
  clock: EmulatorClock;
  /** The runner, runner-image and stack endpoints. */
  ci: CiApi;
}

/** ServiceApi implements the builder and builder-profile endpoints (spec §4.4, §4.5) and routes the rest to CiApi. */
export class ServiceApi {
  readonly #opts: ServiceApiOpts;

  constructor(opts: ServiceApiOpts) {
    this.#opts = opts;
  }

  /** Names the route, builder and profile of a request without handling it. */
  subject(match: RouteMatch, req: ApiRequest): RequestSubject {
    if (match.kind !== 'route') return {route: 'unknown'};
    switch (match.route) {
      case 'assign': {
        const body = parseJson(req.body) as {profile_name?: unknown} | undefined;
        const name = typeof body === 'object' && body !== null ? body.profile_name : undefined;
        return typeof name === 'string' ? {route: 'assign', profile: name} : {route: 'assign'};
      }
      case 'details':
      case 'teardown': {
        const builder = this.#opts.registry.get(match.id as string);
        return {route: match.route, builderId: match.id, profile: builder?.profile.name};
      }
      case 'cache-reset':
        return {route: 'cache-reset', profile: this.#opts.profiles.byId(match.id as string)?.name};
      case 'profiles':
        return {route: 'profiles'};
      default:
        return {route: match.route};
    }
  }

  /**
   * Handles one request. The emulator's choices where the spec shows nothing: the route is matched before
   * credentials are checked (unknown routes 404, wrong methods 405), then 401 for a missing or unknown key,
   * then 403 for a key without the needed scopes (`ci` and `cache` for runners, runner images and stacks,
   * spec §5.3; `builders` for the rest).
   */
  async handle(match: RouteMatch, req: ApiRequest): Promise<HttpResult> {
    switch (match.kind) {
      case 'not-found':
        return apiError(404, 'not_found', `No route for ${req.method} ${req.url.pathname}`);
      case 'method-not-allowed':
        return apiError(405, 'method_not_allowed', `Method ${req.method} not allowed; use ${match.allow}`, {
          allow: match.allow
        });
    }
    const auth = this.#opts.auth.check(req.headers.authorization, isCiRoute(match.route) ? CI_SCOPES : BUILDERS_SCOPE);
    if (!auth.ok) {
      const headers: Record<string, string> =
        auth.status === 401 ? {'www-authenticate': 'Bearer realm="remote-builder"'} : {};
      return apiError(auth.status, auth.code, auth.message, headers);
    }
    switch (match.route) {
      case 'assign':
        return this.#assign(req);
      case 'details':
        return this.#details(match.id as string);
      case 'teardown':
        return this.#teardown(match.id as string);
      case 'profiles':
        return this.#profiles(req.url);
      case 'cache-reset':
        return this.#cacheReset(match.id as string);
      default:
        return this.#opts.ci.handle(match.route, match.id, {
          url: req.url,
          contentType: req.headers['content-type'],
          body: req.body
        });
    }
  }

  async #assign(req: ApiRequest): Promise<HttpResult> {
    if (!isJsonContentType(req.headers['content-type'])) {
      return apiError(415, 'unsupported_media_type', 'Send the body as Content-Type: application/json');
    }
    const body = parseJson(req.body);
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      return apiError(400, 'bad_request', 'Body must be a JSON object like {"profile_name": "…"}');
    }
    const name = (body as {profile_name?: unknown}).profile_name;
    if (typeof name !== 'string' || name.trim() === '') {
      return apiError(400, 'bad_request', '"profile_name" must be a non-empty string');
    }
    const profile = this.#opts.profiles.byName(name);
    if (!profile) return apiError(404, 'profile_not_found', `No builder profile named ${JSON.stringify(name)}`);
    const builders = await this.#opts.registry.assign(profile);
    return json(200, {builder_instances: builders.map(b => ({id: b.id}))});
  }

  #details(id: string): HttpResult {
    const builder = this.#opts.registry.get(id);
    if (!builder) return apiError(404, 'builder_not_found', `No builder ${JSON.stringify(id)}`);
    builder.touch();
    return json(200, builder.details());
  }

  async #teardown(id: string): Promise<HttpResult> {
    const builder = this.#opts.registry.get(id);
    // Spec §3: the teardown transition exists only while the builder is assigned.
    if (!builder || builder.status === 'terminated') {
      return apiError(404, 'builder_not_found', `No assigned builder ${JSON.stringify(id)}`);
    }
    await builder.terminate('teardown');
    return json(200, {id: builder.id, status: 'terminated'});
  }

  #profiles(url: URL): HttpResult {
    const page = positiveIntParam(url, 'page', 1);
    const perPage = positiveIntParam(url, 'per_page', DEFAULT_PER_PAGE);
    if (page === undefined || perPage === undefined) {
      return apiError(400, 'bad_request', '"page" and "per_page" must be positive integers');
    }
    // per_page above MAX_PER_PAGE is clamped rather than refused (the emulator's choice).
    return json(200, this.#opts.profiles.page(page, perPage));
  }

  #cacheReset(id: string): HttpResult {
    const profile = this.#opts.profiles.byId(id);
    if (!profile) return apiError(404, 'profile_not_found', `No builder profile with id ${JSON.stringify(id)}`);
    const at = this.#opts.clock.now();
    this.#opts.profiles.resetCache(profile.id, at);
    // Spec §4.5: response shape not shown; the emulator's choice.
    return json(200, {id: profile.id, cache_reset_at: new Date(at).toISOString()});
  }
}

function positiveIntParam(url: URL, name: string, fallback: number): number | undefined {
  const raw = url.searchParams.get(name);
  if (raw === null) return fallback;
  if (!/^\d+$/.test(raw)) return undefined;
  const n = Number(raw);
  return n >= 1 && Number.isSafeInteger(n) ? n : undefined;
}
