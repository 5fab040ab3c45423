import {ApiProblem} from './api-problem.js';
import type {CiRouteName} from './ci-route-names.js';
import {type HttpResult, isJsonContentType, json, parseJson} from './http.js';
import {DEFAULT_IMAGES_PER_PAGE, type RunnerImageStore} from './runner-images.js';
import type {RunnerStore} from './runners.js';
import type {StackCatalog} from './stacks.js';

/** Routes of the runner, runner-image and stack endpoints (spec §4.1–§4.3). */
export const CI_ROUTES: {method: string; pattern: RegExp; route: CiRouteName}[] = [
  {method: 'GET', pattern: /^\/api\/v1\/stacks$/, route: 'list-stacks'},
  {method: 'GET', pattern: /^\/api\/v1\/runner-images$/, route: 'list-runner-images'},
  {method: 'POST', pattern: /^\/api\/v1\/runner-images$/, route: 'create-runner-image'},
  {method: 'PUT', pattern: /^\/api\/v1\/runner-images\/([^/]+)$/, route: 'update-runner-image'},
  {method: 'GET', pattern: /^\/api\/v1\/runners$/, route: 'list-runners'},
  {method: 'POST', pattern: /^\/api\/v1\/runners$/, route: 'create-runner'},
  {method: 'GET', pattern: /^\/api\/v1\/runners\/([^/]+)$/, route: 'get-runner'},
  {method: 'PATCH', pattern: /^\/api\/v1\/runners\/([^/]+)$/, route: 'update-runner'},
  {method: 'DELETE', pattern: /^\/api\/v1\/runners\/([^/]+)$/, route: 'delete-runner'}
];

/** A request as CiApi sees it. */
export interface CiRequest {
  url: URL;
  contentType?: string;
  body: Buffer;
}

export interface CiApiOpts {
  stacks: StackCatalog;
  images: RunnerImageStore;
  runners: RunnerStore;
}

/**
 * CiApi implements the runner, runner-image and stack endpoints, after ServiceApi matched the route and checked
 * the key (scopes `ci` and `cache`). The emulator's choices where the spec shows nothing: the stack listing is
 * `{"stacks": [...]}` (every stack when `kind` is absent), the runner-image listing is
 * `{"runner_images": [...], "page", "per_page", "total"}`, image create and update answer with the image record,
 * created records answer 201, and bad fields answer 400 with the field named in `error.field`.
 */
export class CiApi {
  readonly #opts: CiApiOpts;

  constructor(opts: CiApiOpts) {
    this.#opts = opts;
  }

  handle(route: CiRouteName, id: string | undefined, req: CiRequest): HttpResult {
    try {
      return this.#route(route, id as string, req);
    } catch (e) {
      if (e instanceof ApiProblem) return e.toResult();
      throw e;
    }
  }

  #route(route: CiRouteName, id: string, req: CiRequest): HttpResult {
    const {stacks, images, runners} = this.#opts;
    const q = req.url.searchParams;
    switch (route) {
      case 'list-stacks': {
        const kind = q.get('kind');
        return json(200, {stacks: stacks.list(kind === null || kind === '' ? undefined : kind)});
      }
      case 'list-runner-images':
        return json(
          200,
          images.list({
            alias: optional(q.get('alias')),
            type: optional(q.get('type')),
            page: positiveInt(q, 'page', 1),
            perPage: positiveInt(q, 'per_page', DEFAULT_IMAGES_PER_PAGE)
          })
        );
      case 'create-runner-image':
        return json(201, images.create(jsonBody(req)));
      case 'update-runner-image':
        return json(200, images.update(id, jsonBody(req)));
      case 'list-runners': {
        const only = q.get('only_custom_runners');
        if (only !== null && only !== 'true' && only !== 'false') {
          throw ApiProblem.invalid('only_custom_runners', 'must be true or false');
        }
        return json(200, runners.list({onlyCustom: only === 'true', image: optional(q.get('image'))}));
      }
      case 'get-runner':
        return json(200, runners.get(id));
      case 'create-runner':
        return json(201, runners.create(jsonBody(req)));
      case 'update-runner':
        return json(200, runners.update(id, jsonBody(req)));
      case 'delete-runner':
        return json(200, runners.delete(id));
    }
  }
}

function optional(v: string | null): string | undefined {
  return v === null || v === '' ? undefined : v;
}

function positiveInt(q: URLSearchParams, name: string, fallback: number): number {
  const raw = q.get(name);
  if (raw === null) return fallback;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < 1 || !Number.isSafeInteger(n)) {
    throw ApiProblem.invalid(name, 'must be a positive integer');
  }
  return n;
}

/** The JSON body of a POST, PUT or PATCH: 415 unless sent as application/json, 400 unless it parses. */
function jsonBody(req: CiRequest): unknown {
  if (!isJsonContentType(req.contentType)) {
    throw new ApiProblem(415, 'unsupported_media_type', 'Send the body as Content-Type: application/json');
  }
  const body = parseJson(req.body);
  if (body === undefined) throw new ApiProblem(400, 'bad_request', 'Body must be a JSON object');
  return body;
}
