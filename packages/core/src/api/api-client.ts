import {abortReason, systemClock, type Clock} from '../clock.js';
import {ApiError, InputError, PartialAssignError, type ApiCall} from '../errors.js';
import {nullLogger, type Logger} from '../logger.js';
import {USER_AGENT} from '../version.js';
import {bodyExcerpt} from './body-excerpt.js';
import {ProxyError} from '../net/proxy-error.js';
import {
  NodeHttpTransport,
  TransportError,
  type HttpMethod,
  type HttpResponse,
  type HttpTransport
} from './http-transport.js';
import {readAssignResponse, readBuilderDetails, readProfilesPage, type ReadResult} from './response-readers.js';
import {parseRetryAfterMs, RetryPolicy, type RetryPolicyOpts} from './retry-policy.js';
import {readRunner, readRunnerImage, readRunnerImagePage, readRunnerList, readStackList} from './runner-readers.js';
import type {
  CreateRunnerImageRequest,
  CreateRunnerRequest,
  ListRunnerImagesQuery,
  ListRunnersQuery,
  ListStacksQuery,
  Runner,
  RunnerImage,
  RunnerImagePage,
  Stack,
  UpdateRunnerImageRequest,
  UpdateRunnerRequest
} from './runner-types.js';
import {
  validateCreateRunner,
  validateCreateRunnerImage,
  validatePositiveInteger,
  validateUpdateRunner,
  validateUpdateRunnerImage
} from './runner-validation.js';
import type {AssignResponse, BuilderDetails, BuilderProfile, TeardownResult} from './types.js';

export interface ApiClientOpts {
  /** Service root, e.g. `https://api.example.com` or `https://host/prefix/`; `/api/v1/…` is appended. */
  baseUrl: string;
  /** API key, sent as `Authorization: Bearer <token>`; never logged nor put into messages. */
  token: string;
  transport?: HttpTransport;
  clock?: Clock;
  logger?: Logger;
  /** Per attempt: connect, request and whole response (default 15000 ms). */
  requestTimeoutMs?: number;
  retry?: Partial<RetryPolicyOpts>;
  /** Jitter source in [0, 1) (default Math.random). */
  random?: () => number;
  userAgent?: string;
}

/** Per-call options: abort with `signal`; aborting rejects with the signal's reason. */
export interface CallOpts {
  signal?: AbortSignal;
}

export interface GetBuilderDetailsOpts extends CallOpts {
  /** Retry transient failures (default true); pollers that retry on their own pass false. */
  retry?: boolean;
}

export interface ListBuilderProfilesOpts extends CallOpts {
  /** Page size asked for (default 100). */
  perPage?: number;
}

export const DEFAULT_REQUEST_TIMEOUT_MS = 15000;
export const DEFAULT_PER_PAGE = 100;
/** listBuilderProfiles gives up beyond this many pages. */
export const MAX_PROFILE_PAGES = 1000;
/** listAllRunnerImages gives up beyond this many pages. */
export const MAX_RUNNER_IMAGE_PAGES = 1000;

const HINT_401 = 'check the api-key: it is missing, wrong or revoked';
const HINT_403 = 'the API key lacks the scopes this call needs';
const HINT_429 = 'rate limited by the service; try again later';
const HINT_5XX = 'the service failed; try again later';
const HINT_ASSIGN_UNKNOWN = 'a builder may have been assigned and billed anyway: check the web UI and tear it down';
/** Spec §5.3: the runner, runner-image and stack endpoints need a key with both scopes. */
const HINT_CI_SCOPES =
  'runner, runner-image and stack calls need an API key with both the "ci" and "cache" scopes (API keys page of the web UI)';
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/** One logical API call: what to send, how to retry, what to say when it fails. */
interface CallSpec {
  /** ApiClient method name, for debug logs. */
  method: string;
  call: ApiCall;
  httpMethod: HttpMethod;
  /** Path below the base URL, path params already encoded. */
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  /** Whether repeating the request is harmless; decides which failures are retried. */
  idempotent: boolean;
  retry: boolean;
  signal?: AbortSignal;
  notFoundHint?: string;
  /** Added to the 401/403 hints: which scopes the call needs. */
  scopeHint?: string;
  /** For calls that are not idempotent: what to check when the request may have been processed without an answer. */
  unknownOutcomeHint?: string;
}

interface Sent {
  res: HttpResponse;
  attempts: number;
}

/**
 * ApiClient is a small HTTP client of the remote-builder service: builder assignment, details and teardown,
 * builder profiles, stacks, runner images and runners. Transient failures are retried with exponential
 * backoff and full jitter; calls that are not idempotent (assignment, creations, the runner PATCH) only when
 * the service cannot have processed them. Every failure is an ApiError that names the call and says what to
 * do; an aborted signal rejects with its reason. Request bodies are validated before anything is sent.
 */
export class ApiClient {
  readonly #token: string;
  readonly #base: string;
  readonly #transport: HttpTransport;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #timeoutMs: number;
  readonly #policy: RetryPolicy;
  readonly #userAgent: string;

  constructor(opts: ApiClientOpts) {
    let url: URL;
    try {
      url = new URL(opts.baseUrl);
    } catch {
      throw new TypeError(`ApiClient: baseUrl "${opts.baseUrl}" is not a URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new TypeError(`ApiClient: baseUrl "${opts.baseUrl}" must be an http or https URL`);
    }
    const timeoutMs = opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
      throw new RangeError(`ApiClient: requestTimeoutMs must be > 0, got ${timeoutMs}`);
    }
    this.#base = url.origin + url.pathname.replace(/\/+$/, '');
    this.#token = opts.token;
    this.#transport = opts.transport ?? new NodeHttpTransport();
    this.#clock = opts.clock ?? systemClock;
    this.#logger = opts.logger ?? nullLogger;
    this.#timeoutMs = timeoutMs;
    this.#policy = new RetryPolicy({...opts.retry, random: opts.random});
    this.#userAgent = opts.userAgent ?? USER_AGENT;
    if (this.#token !== '') this.#logger.setSecret(this.#token);
  }

  /**
   * POST /api/v1/builders/assign: assigns (and starts billing) the builders of a profile. An answer whose
   * entries are partly unusable rejects with a PartialAssignError naming the usable ids (they are billed).
   */
  async assignBuilder(profileName: string, opts: CallOpts = {}): Promise<AssignResponse> {
    if (profileName.trim() === '') throw new InputError('profile-name', 'must not be empty');
    const spec: CallSpec = {
      method: 'assignBuilder',
      call: 'assign builder',
      httpMethod: 'POST',
      path: '/api/v1/builders/assign',
      body: {profile_name: profileName},
      idempotent: false,
      retry: true,
      signal: opts.signal,
      // The spec shows no error codes: a 404 may be the profile, or a base URL whose path is wrong.
      notFoundHint: `unknown builder profile "${profileName}": check profile-name against the builder profiles in the web UI; or api-url (${this.#base}) is not the service's API base, since a wrong path answers 404 too`,
      unknownOutcomeHint: HINT_ASSIGN_UNKNOWN
    };
    const sent = await this.#send(spec);
    this.#throwUnlessOk(spec, sent);
    const read = readAssignResponse(sent.res.body);
    if (!read.ok && 'validIds' in read && read.validIds) {
      throw new PartialAssignError({
        call: spec.call,
        status: sent.res.status,
        hint: `unexpected response: ${read.reason}; the well-formed entries (${read.validIds.join(', ')}) were assigned and are billed until torn down`,
        assignedIds: read.validIds
      });
    }
    return this.#read(spec, sent, read, HINT_ASSIGN_UNKNOWN);
  }

  /** GET /api/v1/builders/{id}/details: address and TLS material; missing fields are '' (readiness decides). */
  async getBuilderDetails(builderId: string, opts: GetBuilderDetailsOpts = {}): Promise<BuilderDetails> {
    const spec: CallSpec = {
      method: 'getBuilderDetails',
      call: 'get builder details',
      httpMethod: 'GET',
      path: `/api/v1/builders/${pathParam('builderId', builderId)}/details`,
      idempotent: true,
      retry: opts.retry ?? true,
      signal: opts.signal,
      notFoundHint: 'the builder does not exist (already torn down or never assigned)'
    };
    const sent = await this.#send(spec);
    this.#throwUnlessOk(spec, sent);
    return this.#read(spec, sent, readBuilderDetails(sent.res.body), undefined, false);
  }

  /**
   * DELETE /api/v1/builders/{id}/teardown: stops billing. A builder that is gone (404, 410) is not an error.
   * `retry: false` for callers that pace their own rounds (teardownBuilders fits them into a budget).
   */
  async teardownBuilder(builderId: string, opts: GetBuilderDetailsOpts = {}): Promise<TeardownResult> {
    const spec: CallSpec = {
      method: 'teardownBuilder',
      call: 'tear down builder',
      httpMethod: 'DELETE',
      path: `/api/v1/builders/${pathParam('builderId', builderId)}/teardown`,
      idempotent: true,
      retry: opts.retry ?? true,
      signal: opts.signal
    };
    const sent = await this.#send(spec);
    if (sent.res.status === 404 || sent.res.status === 410) return {alreadyGone: true};
    this.#throwUnlessOk(spec, sent);
    return {alreadyGone: false};
  }

  /**
   * GET /api/v1/builder-profiles, every page (`page` from 1, `per_page`) until a short or empty page. A page
   * is short when it holds fewer than `per_page` profiles, or fewer than the page's own `per_page` field.
   */
  async listBuilderProfiles(opts: ListBuilderProfilesOpts = {}): Promise<BuilderProfile[]> {
    const perPage = opts.perPage ?? DEFAULT_PER_PAGE;
    if (!Number.isInteger(perPage) || perPage < 1) {
      throw new RangeError(`ApiClient.listBuilderProfiles: perPage must be an integer >= 1, got ${perPage}`);
    }
    const all: BuilderProfile[] = [];
    let previousIds: string | undefined;
    for (let page = 1; ; page++) {
      const spec: CallSpec = {
        method: 'listBuilderProfiles',
        call: 'list builder profiles',
        httpMethod: 'GET',
        path: '/api/v1/builder-profiles',
        query: {page: String(page), per_page: String(perPage)},
        idempotent: true,
        retry: true,
        signal: opts.signal,
        notFoundHint: 'the builder-profiles endpoint was not found: check the API URL'
      };
      const sent = await this.#send(spec);
      this.#throwUnlessOk(spec, sent);
      const {profiles, perPage: served} = this.#read(spec, sent, readProfilesPage(sent.res.body));
      if (profiles.length === 0) break;
      const ids = JSON.stringify(profiles.map(p => p.id));
      if (ids === previousIds) {
        throw new ApiError({
          call: 'list builder profiles',
          status: sent.res.status,
          hint: `unexpected response: page ${page} repeats page ${page - 1} (is the page parameter ignored?); stopped`
        });
      }
      all.push(...profiles);
      // A service that clamps per_page and says so (a `per_page` field) pages by its own size.
      if (profiles.length < Math.min(perPage, served ?? perPage)) break;
      if (page === MAX_PROFILE_PAGES) {
        throw new ApiError({
          call: 'list builder profiles',
          status: sent.res.status,
          hint: `unexpected response: more than ${MAX_PROFILE_PAGES} pages of ${perPage} profiles; stopped`
        });
      }
      previousIds = ids;
    }
    return all;
  }

  /**
   * POST /api/v1/builder-profiles/{id}/cache/reset: clears the profile's cached layers. Resetting twice is
   * harmless, so this POST is retried like an idempotent call. Resolves with the parsed body (shape not
   * specified): JSON, the raw text when it is not JSON, or undefined when empty.
   */
  async resetBuilderProfileCache(profileId: string, opts: CallOpts = {}): Promise<unknown> {
    const spec: CallSpec = {
      method: 'resetBuilderProfileCache',
      call: 'reset builder profile cache',
      httpMethod: 'POST',
      path: `/api/v1/builder-profiles/${pathParam('profileId', profileId)}/cache/reset`,
      idempotent: true,
      retry: true,
      signal: opts.signal,
      notFoundHint: `unknown builder profile id "${profileId}": check it against listBuilderProfiles or the web UI`
    };
    const sent = await this.#send(spec);
    this.#throwUnlessOk(spec, sent);
    const body = sent.res.body;
    if (body.trim() === '') return undefined;
    try {
      return JSON.parse(body) as unknown;
    } catch {
      return body;
    }
  }

  /** GET /api/v1/stacks: the stacks (of one `kind`, e.g. `ec2`, when given). */
  async listStacks(query: ListStacksQuery = {}, opts: CallOpts = {}): Promise<Stack[]> {
    if (query.kind !== undefined && query.kind.trim() === '') throw new InputError('kind', 'must not be empty');
    return this.#call(
      ciSpec({
        method: 'listStacks',
        call: 'list stacks',
        httpMethod: 'GET',
        path: '/api/v1/stacks',
        query: query.kind !== undefined ? {kind: query.kind} : undefined,
        idempotent: true,
        signal: opts.signal,
        notFoundHint: 'the stacks endpoint was not found: check the API URL'
      }),
      readStackList
    );
  }

  /** GET /api/v1/runner-images: one page, filtered by `alias` (a search filter) and `type` when given. */
  async listRunnerImages(query: ListRunnerImagesQuery = {}, opts: CallOpts = {}): Promise<RunnerImagePage> {
    return (await this.#runnerImagesPage(query, opts)).page;
  }

  async #runnerImagesPage(
    query: ListRunnerImagesQuery,
    opts: CallOpts
  ): Promise<{page: RunnerImagePage; status: number}> {
    validatePositiveInteger(query.page, 'page');
    validatePositiveInteger(query.perPage, 'per_page');
    const q: Record<string, string> = {};
    if (query.alias !== undefined) q.alias = query.alias;
    if (query.type !== undefined) q.type = query.type;
    if (query.page !== undefined) q.page = String(query.page);
    if (query.perPage !== undefined) q.per_page = String(query.perPage);
    const spec = ciSpec({
      method: 'listRunnerImages',
      call: 'list runner images',
      httpMethod: 'GET',
      path: '/api/v1/runner-images',
      query: Object.keys(q).length > 0 ? q : undefined,
      idempotent: true,
      signal: opts.signal,
      notFoundHint: 'the runner-images endpoint was not found: check the API URL'
    });
    const sent = await this.#send(spec);
    this.#throwUnlessOk(spec, sent);
    return {page: this.#read(spec, sent, readRunnerImagePage(sent.res.body)), status: sent.res.status};
  }

  /**
   * Every page of GET /api/v1/runner-images (`page` from 1, `per_page` default 100) until a short or empty page,
   * or until `total` images, when the service says how many there are.
   */
  async listAllRunnerImages(
    query: Omit<ListRunnerImagesQuery, 'page'> = {},
    opts: CallOpts = {}
  ): Promise<RunnerImage[]> {
    const perPage = query.perPage ?? DEFAULT_PER_PAGE;
    validatePositiveInteger(perPage, 'per_page');
    const all: RunnerImage[] = [];
    let previousIds: string | undefined;
    for (let page = 1; ; page++) {
      const {page: got, status} = await this.#runnerImagesPage({...query, page, perPage}, opts);
      if (got.images.length === 0) break;
      const ids = JSON.stringify(got.images.map(i => i.id));
      if (ids === previousIds) {
        throw new ApiError({
          call: 'list runner images',
          status,
          hint: `unexpected response: page ${page} repeats page ${page - 1} (is the page parameter ignored?); stopped`
        });
      }
      all.push(...got.images);
      if (got.images.length < Math.min(perPage, got.perPage ?? perPage)) break;
      if (got.total !== undefined && all.length >= got.total) break;
      if (page === MAX_RUNNER_IMAGE_PAGES) {
        throw new ApiError({
          call: 'list runner images',
          status,
          hint: `unexpected response: more than ${MAX_RUNNER_IMAGE_PAGES} pages of ${perPage} images; stopped`
        });
      }
      previousIds = ids;
    }
    return all;
  }

  /**
   * POST /api/v1/runner-images. Not idempotent (a repeat could create a second image), so it is retried only
   * when the service cannot have processed it.
   */
  async createRunnerImage(req: CreateRunnerImageRequest, opts: CallOpts = {}): Promise<RunnerImage> {
    validateCreateRunnerImage(req);
    const unknownOutcome = 'the image may have been created anyway: list the runner images by alias before retrying';
    return this.#call(
      ciSpec({
        method: 'createRunnerImage',
        call: 'create runner image',
        httpMethod: 'POST',
        path: '/api/v1/runner-images',
        body: req,
        idempotent: false,
        signal: opts.signal,
        unknownOutcomeHint: unknownOutcome
      }),
      readRunnerImage,
      unknownOutcome
    );
  }

  /**
   * PUT /api/v1/runner-images/{id} with `id`, `settings` and `byoc_ami` (spec §2.2); retried like any PUT.
   * The response shape is not shown: resolves with the record sent back, or `{id}` when there is none.
   */
  async updateRunnerImage(imageId: string, req: UpdateRunnerImageRequest, opts: CallOpts = {}): Promise<RunnerImage> {
    const path = `/api/v1/runner-images/${pathParam('imageId', imageId)}`;
    validateUpdateRunnerImage(imageId, req);
    const spec = ciSpec({
      method: 'updateRunnerImage',
      call: 'update runner image',
      httpMethod: 'PUT',
      path,
      body: {...req, id: imageId},
      idempotent: true,
      signal: opts.signal,
      notFoundHint: `no runner image "${imageId}": find its id with the runner-images listing (filter by alias)`
    });
    const sent = await this.#send(spec);
    this.#throwUnlessOk(spec, sent);
    const read = readRunnerImage(sent.res.body);
    if (read.ok) return read.value;
    let parsed: unknown;
    try {
      parsed = JSON.parse(sent.res.body);
    } catch {
      parsed = undefined;
    }
    const extra = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? parsed : {};
    return {...extra, id: imageId};
  }

  /** GET /api/v1/runners (not paginated), filtered by `only_custom_runners` and `image` when given. */
  async listRunners(query: ListRunnersQuery = {}, opts: CallOpts = {}): Promise<Runner[]> {
    const q: Record<string, string> = {};
    if (query.onlyCustomRunners !== undefined) q.only_custom_runners = String(query.onlyCustomRunners);
    if (query.image !== undefined) {
      if (query.image.trim() === '') throw new InputError('image', 'must not be empty');
      q.image = query.image;
    }
    return this.#call(
      ciSpec({
        method: 'listRunners',
        call: 'list runners',
        httpMethod: 'GET',
        path: '/api/v1/runners',
        query: Object.keys(q).length > 0 ? q : undefined,
        idempotent: true,
        signal: opts.signal,
        notFoundHint: 'the runners endpoint was not found: check the API URL'
      }),
      readRunnerList
    );
  }

  /** GET /api/v1/runners/{id}. */
  async getRunner(runnerId: string, opts: CallOpts = {}): Promise<Runner> {
    return this.#call(
      ciSpec({
        method: 'getRunner',
        call: 'get runner',
        httpMethod: 'GET',
        path: `/api/v1/runners/${pathParam('runnerId', runnerId)}`,
        idempotent: true,
        signal: opts.signal,
        notFoundHint: `no runner "${runnerId}": check the id against the runners listing`
      }),
      readRunner
    );
  }

  /**
   * POST /api/v1/runners, validated first (see validateCreateRunner). Not idempotent (a repeat could create a
   * second runner), so it is retried only when the service cannot have processed it.
   */
  async createRunner(req: CreateRunnerRequest, opts: CallOpts = {}): Promise<Runner> {
    validateCreateRunner(req);
    const unknownOutcome = `the runner may have been created anyway: look for "${req.name}" in the runners listing before retrying`;
    return this.#call(
      ciSpec({
        method: 'createRunner',
        call: 'create runner',
        httpMethod: 'POST',
        path: '/api/v1/runners',
        body: req,
        idempotent: false,
        signal: opts.signal,
        unknownOutcomeHint: unknownOutcome
      }),
      readRunner,
      unknownOutcome
    );
  }

  /**
   * PATCH /api/v1/runners/{id} with pool_size, labels and configuration (no role_arn). Treated as not
   * idempotent: the spec does not say the body replaces rather than merges (labels could be appended), so it
   * is retried only when the service cannot have processed it.
   */
  async updateRunner(runnerId: string, req: UpdateRunnerRequest, opts: CallOpts = {}): Promise<Runner> {
    const path = `/api/v1/runners/${pathParam('runnerId', runnerId)}`;
    validateUpdateRunner(req);
    return this.#call(
      ciSpec({
        method: 'updateRunner',
        call: 'update runner',
        httpMethod: 'PATCH',
        path,
        body: req,
        idempotent: false,
        signal: opts.signal,
        notFoundHint: `no runner "${runnerId}": check the id against the runners listing`,
        unknownOutcomeHint: 'the update may have been applied anyway: get the runner to check before retrying'
      }),
      readRunner
    );
  }

  /** DELETE /api/v1/runners/{id}: removes the runner, irreversibly (spec §3); resolves with its record. */
  async deleteRunner(runnerId: string, opts: CallOpts = {}): Promise<Runner> {
    return this.#call(
      ciSpec({
        method: 'deleteRunner',
        call: 'delete runner',
        httpMethod: 'DELETE',
        path: `/api/v1/runners/${pathParam('runnerId', runnerId)}`,
        idempotent: true,
        signal: opts.signal,
        notFoundHint: `no runner "${runnerId}" (already deleted?): check the id against the runners listing`
      }),
      readRunner
    );
  }

  /** Closes the transport (also an injected one): keep-alive sockets no longer hold the process open. */
  close(): void {
    this.#transport.close();
  }

  /** Sends one call, fails on a non-2xx status, and reads the body with `reader`. */
  async #call<T>(spec: CallSpec, reader: (body: string) => ReadResult<T>, extraHint?: string): Promise<T> {
    const sent = await this.#send(spec);
    this.#throwUnlessOk(spec, sent);
    return this.#read(spec, sent, reader(sent.res.body), extraHint);
  }

  /** Sends one call, retrying as the policy allows; resolves with the last response whatever its status. */
  async #send(spec: CallSpec): Promise<Sent> {
    const {signal} = spec;
    const query = spec.query ? `?${new URLSearchParams(spec.query).toString()}` : '';
    const logTarget = `${spec.httpMethod} ${spec.path}${query}`;
    const headers: Record<string, string> = {Accept: 'application/json', 'User-Agent': this.#userAgent};
    if (this.#token !== '') headers.Authorization = `Bearer ${this.#token}`;
    let body: string | undefined;
    if (spec.body !== undefined) {
      body = JSON.stringify(spec.body);
      headers['Content-Type'] = 'application/json';
    }
    const maxAttempts = spec.retry ? this.#policy.opts.maxAttempts : 1;
    for (let attempt = 1; ; attempt++) {
      if (signal?.aborted) throw abortReason(signal);
      const started = this.#clock.now();
      let res: HttpResponse;
      try {
        res = await this.#transport.request({
          method: spec.httpMethod,
          url: this.#base + spec.path + query,
          headers: {...headers},
          body,
          timeoutMs: this.#timeoutMs,
          signal
        });
      } catch (e) {
        if (signal?.aborted) throw abortReason(signal);
        const failure = transportFailure(e);
        this.#logger.debug(
          `ApiClient.${spec.method}: ${logTarget} → ${failure.code} in ${this.#clock.now() - started} ms`
        );
        if (attempt < maxAttempts && this.#policy.isRetryable(failure, spec.idempotent)) {
          await this.#backoff(spec, attempt, maxAttempts, undefined);
          continue;
        }
        throw this.#transportError(spec, failure, attempt);
      }
      const size = Buffer.byteLength(res.body);
      this.#logger.debug(
        `ApiClient.${spec.method}: ${logTarget} → ${res.status} in ${this.#clock.now() - started} ms (${size} bytes)`
      );
      if (
        !isOk(res.status) &&
        attempt < maxAttempts &&
        this.#policy.isRetryable({status: res.status}, spec.idempotent)
      ) {
        await this.#backoff(spec, attempt, maxAttempts, header(res, 'retry-after'));
        continue;
      }
      return {res, attempts: attempt};
    }
  }

  async #backoff(spec: CallSpec, attempt: number, maxAttempts: number, retryAfter: string | undefined): Promise<void> {
    const delay = this.#policy.delayMs(attempt, retryAfter, this.#clock.now());
    this.#logger.debug(`ApiClient.${spec.method}: retrying in ${delay} ms (attempt ${attempt + 1} of ${maxAttempts})`);
    await this.#clock.sleep(delay, spec.signal);
  }

  #throwUnlessOk(spec: CallSpec, {res, attempts}: Sent): void {
    if (isOk(res.status)) return;
    const retryAfterMs = parseRetryAfterMs(header(res, 'retry-after'), this.#clock.now());
    throw new ApiError({
      call: spec.call,
      status: res.status,
      bodyExcerpt: this.#excerpt(res.body),
      hint: withAttempts(statusHint(spec, res.status, header(res, 'location')), attempts),
      ...(retryAfterMs !== undefined ? {retryAfterMs} : {})
    });
  }

  /** Unwraps a reader's result; an unusable 2xx body becomes an "unexpected response" ApiError. */
  #read<T>(spec: CallSpec, {res}: Sent, result: ReadResult<T>, extraHint?: string, showBody = true): T {
    if (result.ok) return result.value;
    const hint = `unexpected response: ${result.reason}${extraHint ? `; ${extraHint}` : ''}`;
    throw new ApiError({
      call: spec.call,
      status: res.status,
      bodyExcerpt: showBody ? this.#excerpt(res.body) : undefined,
      hint
    });
  }

  #transportError(spec: CallSpec, failure: TransportFailure, attempts: number): ApiError {
    let hint: string | undefined;
    // A failure on the way through the proxy says which proxy and what to check: keep it whole.
    if (failure.cause instanceof ProxyError) hint = failure.cause.message;
    else if (failure.code === 'ETIMEDOUT') hint = `no answer within ${this.#timeoutMs} ms`;
    else if (UNREACHABLE_CODES.has(failure.code))
      hint = `cannot reach ${new URL(this.#base).origin}: check the API URL and the network`;
    else if (failure.code === 'ECONNRESET') hint = 'the connection was closed before the response was complete';
    if (spec.unknownOutcomeHint && !failure.notSent)
      hint = hint ? `${hint}; ${spec.unknownOutcomeHint}` : spec.unknownOutcomeHint;
    return new ApiError({
      call: spec.call,
      code: failure.code,
      notSent: failure.notSent,
      hint: withAttempts(hint, attempts),
      cause: failure.cause
    });
  }

  #excerpt(body: string): string | undefined {
    return bodyExcerpt(body, [this.#token]) || undefined;
  }
}

interface TransportFailure {
  code: string;
  notSent: boolean;
  cause: unknown;
}

function transportFailure(e: unknown): TransportFailure {
  if (e instanceof TransportError) return {code: e.code, notSent: e.notSent, cause: e};
  const code = (e as {code?: unknown} | null)?.code;
  return {code: typeof code === 'string' && code !== '' ? code : 'ENETWORK', notSent: false, cause: e};
}

/** A CallSpec of a runner, runner-image or stack endpoint: retried, with the scope hint of spec §5.3. */
function ciSpec(spec: Omit<CallSpec, 'retry' | 'scopeHint'>): CallSpec {
  return {...spec, retry: true, scopeHint: HINT_CI_SCOPES};
}

function statusHint(spec: CallSpec, status: number, location?: string): string | undefined {
  if (status >= 300 && status <= 399) {
    // Redirects are not followed: the API key must never travel to an address the user did not give.
    const to = location ? `redirects to ${location}` : 'is a redirect without a Location';
    return `the answer ${to}: redirects are not followed, so the API key is never sent elsewhere; set api-url to the service's API base${location ? ' (the address it points to, if you trust it)' : ''}`;
  }
  if (status === 401) return spec.scopeHint ? `${HINT_401}; ${spec.scopeHint}` : HINT_401;
  if (status === 403) return spec.scopeHint ? `${HINT_403}: ${spec.scopeHint}` : HINT_403;
  if (spec.unknownOutcomeHint && status >= 500 && status !== 501 && status !== 503 && status !== 505) {
    return `${HINT_5XX}; ${spec.unknownOutcomeHint}`;
  }
  if (status === 404) return spec.notFoundHint;
  if (status === 429) return HINT_429;
  if (status >= 500) return HINT_5XX;
  return undefined;
}

function withAttempts(hint: string | undefined, attempts: number): string | undefined {
  if (attempts <= 1) return hint;
  const gaveUp = `gave up after ${attempts} attempts`;
  return hint ? `${hint}; ${gaveUp}` : gaveUp;
}

function isOk(status: number): boolean {
  return status >= 200 && status <= 299;
}

function header(res: HttpResponse, name: string): string | undefined {
  for (const [k, v] of Object.entries(res.headers)) {
    if (k.toLowerCase() === name) return v;
  }
  return undefined;
}

function pathParam(name: string, value: string): string {
  // '.' and '..' (even percent-encoded) are dot segments that URL parsing would resolve away.
  if (value === '' || value === '.' || value === '..')
    throw new TypeError(`ApiClient: ${name} "${value}" is not valid`);
  return encodeURIComponent(value);
}
