import {InputError, PartialAssignError} from '../errors.js';
import type {BuilderApi} from './builder-api.js';
import {paginate} from './paginate.js';
import type {CallOpts, CallSpec} from './call-spec.js';
import {pathParam, RequestEngine, type ClientOpts} from './request-engine.js';
import {readAssignResponse, readBuilderDetails, readProfilesPage} from './response-readers.js';
import type {AssignResponse, BuilderDetails, BuilderProfile, TeardownResult} from './types.js';

export type BuildersClientOpts = ClientOpts;

export interface GetBuilderDetailsOpts extends CallOpts {
  /** Retry transient failures (default true); pollers that retry on their own pass false. */
  retry?: boolean;
}

export interface ListBuilderProfilesOpts extends CallOpts {
  /** Page size asked for (default: paginate's). */
  perPage?: number;
}

const HINT_ASSIGN_UNKNOWN = 'a builder may have been assigned and billed anyway: check the web UI and tear it down';

/**
 * BuildersClient is the client of the service's builder calls: assignment, details and teardown, the builder
 * profiles and their cache. It is all the actions need; runners, runner images and stacks are the CiClient's.
 */
export class BuildersClient implements BuilderApi {
  readonly #engine: RequestEngine;

  constructor(opts: BuildersClientOpts) {
    this.#engine = RequestEngine.of(opts);
  }

  /**
   * POST /api/v1/builders/assign: assigns (and starts billing) the builders of a profile. An answer whose
   * entries are partly unusable rejects with a PartialAssignError naming the usable ids (they are billed).
   */
  async assignBuilder(profileName: string, opts: CallOpts = {}): Promise<AssignResponse> {
    const names = this.#engine.inputNames;
    if (profileName.trim() === '') throw new InputError(names.profileName, 'must not be empty');
    const base = this.#engine.baseUrl;
    const spec: CallSpec = {
      method: 'BuildersClient.assignBuilder',
      call: 'assign builder',
      httpMethod: 'POST',
      path: '/api/v1/builders/assign',
      body: {profile_name: profileName},
      idempotent: false,
      retry: true,
      signal: opts.signal,
      timeoutMs: opts.timeoutMs,
      // The spec shows no error codes: a 404 may be the profile, or a base URL whose path is wrong.
      notFoundHint: `unknown builder profile "${profileName}": check ${names.profileName} against the builder profiles in the web UI; or ${names.apiUrl} (${base}) is not the service's API base, since a wrong path answers 404 too`,
      unknownOutcomeHint: HINT_ASSIGN_UNKNOWN
    };
    const sent = await this.#engine.send(spec);
    this.#engine.throwUnlessOk(spec, sent);
    const read = readAssignResponse(sent.res.body);
    if (!read.ok && 'validIds' in read && read.validIds) {
      throw new PartialAssignError({
        call: spec.call,
        status: sent.res.status,
        hint: `unexpected response: ${read.reason}; the well-formed entries (${read.validIds.join(', ')}) were assigned and are billed until torn down`,
        assignedIds: read.validIds
      });
    }
    return this.#engine.read(spec, sent, read, HINT_ASSIGN_UNKNOWN);
  }

  /** GET /api/v1/builders/{id}/details: address and TLS material; missing fields are '' (readiness decides). */
  async getBuilderDetails(builderId: string, opts: GetBuilderDetailsOpts = {}): Promise<BuilderDetails> {
    const spec: CallSpec = {
      method: 'BuildersClient.getBuilderDetails',
      call: 'get builder details',
      httpMethod: 'GET',
      path: `/api/v1/builders/${pathParam('builderId', builderId)}/details`,
      idempotent: true,
      retry: opts.retry ?? true,
      signal: opts.signal,
      timeoutMs: opts.timeoutMs,
      notFoundHint: 'the builder does not exist (already torn down or never assigned)'
    };
    const sent = await this.#engine.send(spec);
    this.#engine.throwUnlessOk(spec, sent);
    // The details hold the builder's private key: an unusable body is not quoted.
    return this.#engine.read(spec, sent, readBuilderDetails(sent.res.body), undefined, false);
  }

  /**
   * DELETE /api/v1/builders/{id}/teardown: stops billing. A builder that is gone (404, 410) is not an error.
   * `retry: false` for callers that pace their own rounds (teardownBuilders fits them into a budget).
   */
  async teardownBuilder(builderId: string, opts: GetBuilderDetailsOpts = {}): Promise<TeardownResult> {
    const spec: CallSpec = {
      method: 'BuildersClient.teardownBuilder',
      call: 'tear down builder',
      httpMethod: 'DELETE',
      path: `/api/v1/builders/${pathParam('builderId', builderId)}/teardown`,
      idempotent: true,
      retry: opts.retry ?? true,
      signal: opts.signal,
      timeoutMs: opts.timeoutMs
    };
    const sent = await this.#engine.send(spec);
    if (sent.res.status === 404 || sent.res.status === 410) return {alreadyGone: true};
    this.#engine.throwUnlessOk(spec, sent);
    return {alreadyGone: false};
  }

  /** GET /api/v1/builder-profiles, every page (see paginate). */
  async listBuilderProfiles(opts: ListBuilderProfilesOpts = {}): Promise<BuilderProfile[]> {
    return paginate({
      call: 'list builder profiles',
      noun: 'profiles',
      perPage: opts.perPage,
      idOf: p => p.id,
      fetchPage: async (page, perPage) => {
        const spec: CallSpec = {
          method: 'BuildersClient.listBuilderProfiles',
          call: 'list builder profiles',
          httpMethod: 'GET',
          path: '/api/v1/builder-profiles',
          query: {page: String(page), per_page: String(perPage)},
          idempotent: true,
          retry: true,
          signal: opts.signal,
          timeoutMs: opts.timeoutMs,
          notFoundHint: 'the builder-profiles endpoint was not found: check the API URL'
        };
        const sent = await this.#engine.send(spec);
        this.#engine.throwUnlessOk(spec, sent);
        const got = this.#engine.read(spec, sent, readProfilesPage(sent.res.body));
        return {items: got.profiles, perPage: got.perPage, status: sent.res.status};
      }
    });
  }

  /**
   * POST /api/v1/builder-profiles/{id}/cache/reset: clears the profile's cached layers. Resetting twice is
   * harmless, so this POST is retried like an idempotent call. Resolves with the parsed body (shape not
   * specified): JSON, the raw text when it is not JSON, or undefined when empty.
   */
  async resetBuilderProfileCache(profileId: string, opts: CallOpts = {}): Promise<unknown> {
    const spec: CallSpec = {
      method: 'BuildersClient.resetBuilderProfileCache',
      call: 'reset builder profile cache',
      httpMethod: 'POST',
      path: `/api/v1/builder-profiles/${pathParam('profileId', profileId)}/cache/reset`,
      idempotent: true,
      retry: true,
      signal: opts.signal,
      timeoutMs: opts.timeoutMs,
      notFoundHint: `unknown builder profile id "${profileId}": check it against listBuilderProfiles or the web UI`
    };
    const sent = await this.#engine.send(spec);
    this.#engine.throwUnlessOk(spec, sent);
    const body = sent.res.body;
    if (body.trim() === '') return undefined;
    try {
      return JSON.parse(body) as unknown;
    } catch {
      return body;
    }
  }

  /** Closes the engine's transport (also a shared or injected one). */
  close(): void {
    this.#engine.close();
  }
}
