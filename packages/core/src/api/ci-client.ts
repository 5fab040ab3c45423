import {InputError} from '../errors.js';
import {paginate} from './paginate.js';
import type {CallOpts, CallSpec} from './call-spec.js';
import {pathParam, RequestEngine, type ClientOpts} from './request-engine.js';
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

export type CiClientOpts = ClientOpts;

/** Spec §5.3: the runner, runner-image and stack endpoints need a key with both scopes. */
const HINT_CI_SCOPES =
  'runner, runner-image and stack calls need an API key with both the "ci" and "cache" scopes (API keys page of the web UI)';

/**
 * CiClient is the client of the service's CI calls: stacks, runner images and runners. Request bodies are
 * validated before anything is sent; creations and the runner PATCH are retried only when the service
 * cannot have processed them. The actions never use it (import it from `@remote-builder-actions/core/ci`).
 */
export class CiClient {
  readonly #engine: RequestEngine;

  constructor(opts: CiClientOpts) {
    this.#engine = RequestEngine.of(opts);
  }

  /** GET /api/v1/stacks: the stacks (of one `kind`, e.g. `ec2`, when given). */
  async listStacks(query: ListStacksQuery = {}, opts: CallOpts = {}): Promise<Stack[]> {
    if (query.kind !== undefined && query.kind.trim() === '') throw new InputError('kind', 'must not be empty');
    return this.#engine.call(
      ciSpec({
        method: 'CiClient.listStacks',
        call: 'list stacks',
        httpMethod: 'GET',
        path: '/api/v1/stacks',
        query: query.kind !== undefined ? {kind: query.kind} : undefined,
        idempotent: true,
        signal: opts.signal,
        timeoutMs: opts.timeoutMs,
        notFoundHint: 'the stacks endpoint was not found: check the API URL'
      }),
      readStackList
    );
  }

  /** GET /api/v1/runner-images: one page, filtered by `alias` (a search filter) and `type` when given. */
  async listRunnerImages(query: ListRunnerImagesQuery = {}, opts: CallOpts = {}): Promise<RunnerImagePage> {
    return (await this.#runnerImagesPage(query, opts)).page;
  }

  /**
   * Every page of GET /api/v1/runner-images (`per_page` default: paginate's), stopping early at the
   * `total` the service gives.
   */
  async listAllRunnerImages(
    query: Omit<ListRunnerImagesQuery, 'page'> = {},
    opts: CallOpts = {}
  ): Promise<RunnerImage[]> {
    validatePositiveInteger(query.perPage, 'per_page');
    return paginate({
      call: 'list runner images',
      noun: 'images',
      perPage: query.perPage,
      idOf: i => i.id,
      fetchPage: async (page, perPage) => {
        const got = await this.#runnerImagesPage({...query, page, perPage}, opts);
        return {items: got.page.images, perPage: got.page.perPage, total: got.page.total, status: got.status};
      }
    });
  }

  /**
   * POST /api/v1/runner-images. Not idempotent (a repeat could create a second image), so it is retried only
   * when the service cannot have processed it.
   */
  async createRunnerImage(req: CreateRunnerImageRequest, opts: CallOpts = {}): Promise<RunnerImage> {
    validateCreateRunnerImage(req);
    const unknownOutcome = 'the image may have been created anyway: list the runner images by alias before retrying';
    return this.#engine.call(
      ciSpec({
        method: 'CiClient.createRunnerImage',
        call: 'create runner image',
        httpMethod: 'POST',
        path: '/api/v1/runner-images',
        body: req,
        idempotent: false,
        signal: opts.signal,
        timeoutMs: opts.timeoutMs,
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
      method: 'CiClient.updateRunnerImage',
      call: 'update runner image',
      httpMethod: 'PUT',
      path,
      body: {...req, id: imageId},
      idempotent: true,
      signal: opts.signal,
      timeoutMs: opts.timeoutMs,
      notFoundHint: `no runner image "${imageId}": find its id with the runner-images listing (filter by alias)`
    });
    const sent = await this.#engine.send(spec);
    this.#engine.throwUnlessOk(spec, sent);
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
    return this.#engine.call(
      ciSpec({
        method: 'CiClient.listRunners',
        call: 'list runners',
        httpMethod: 'GET',
        path: '/api/v1/runners',
        query: Object.keys(q).length > 0 ? q : undefined,
        idempotent: true,
        signal: opts.signal,
        timeoutMs: opts.timeoutMs,
        notFoundHint: 'the runners endpoint was not found: check the API URL'
      }),
      readRunnerList
    );
  }

  /** GET /api/v1/runners/{id}. */
  async getRunner(runnerId: string, opts: CallOpts = {}): Promise<Runner> {
    return this.#engine.call(
      ciSpec({
        method: 'CiClient.getRunner',
        call: 'get runner',
        httpMethod: 'GET',
        path: `/api/v1/runners/${pathParam('runnerId', runnerId)}`,
        idempotent: true,
        signal: opts.signal,
        timeoutMs: opts.timeoutMs,
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
    return this.#engine.call(
      ciSpec({
        method: 'CiClient.createRunner',
        call: 'create runner',
        httpMethod: 'POST',
        path: '/api/v1/runners',
        body: req,
        idempotent: false,
        signal: opts.signal,
        timeoutMs: opts.timeoutMs,
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
    return this.#engine.call(
      ciSpec({
        method: 'CiClient.updateRunner',
        call: 'update runner',
        httpMethod: 'PATCH',
        path,
        body: req,
        idempotent: false,
        signal: opts.signal,
        timeoutMs: opts.timeoutMs,
        notFoundHint: `no runner "${runnerId}": check the id against the runners listing`,
        unknownOutcomeHint: 'the update may have been applied anyway: get the runner to check before retrying'
      }),
      readRunner
    );
  }

  /** DELETE /api/v1/runners/{id}: removes the runner, irreversibly (spec §3); resolves with its record. */
  async deleteRunner(runnerId: string, opts: CallOpts = {}): Promise<Runner> {
    return this.#engine.call(
      ciSpec({
        method: 'CiClient.deleteRunner',
        call: 'delete runner',
        httpMethod: 'DELETE',
        path: `/api/v1/runners/${pathParam('runnerId', runnerId)}`,
        idempotent: true,
        signal: opts.signal,
        timeoutMs: opts.timeoutMs,
        notFoundHint: `no runner "${runnerId}" (already deleted?): check the id against the runners listing`
      }),
      readRunner
    );
  }

  /** Closes the engine's transport (also a shared or injected one). */
  close(): void {
    this.#engine.close();
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
      method: 'CiClient.listRunnerImages',
      call: 'list runner images',
      httpMethod: 'GET',
      path: '/api/v1/runner-images',
      query: Object.keys(q).length > 0 ? q : undefined,
      idempotent: true,
      signal: opts.signal,
      timeoutMs: opts.timeoutMs,
      notFoundHint: 'the runner-images endpoint was not found: check the API URL'
    });
    const sent = await this.#engine.send(spec);
    this.#engine.throwUnlessOk(spec, sent);
    return {page: this.#engine.read(spec, sent, readRunnerImagePage(sent.res.body)), status: sent.res.status};
  }
}

/** A CallSpec of a runner, runner-image or stack endpoint: retried, with the scope hint of spec §5.3. */
function ciSpec(spec: Omit<CallSpec, 'retry' | 'scopeHint'>): CallSpec {
  return {...spec, retry: true, scopeHint: HINT_CI_SCOPES};
}
