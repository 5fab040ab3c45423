import {BuildersClient, type GetBuilderDetailsOpts, type ListBuilderProfilesOpts} from './builders-client.js';
import {CiClient} from './ci-client.js';
import {RequestEngine, type CallOpts, type RequestEngineOpts} from './request-engine.js';
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
import type {AssignResponse, BuilderDetails, BuilderProfile, TeardownResult} from './types.js';

export type ApiClientOpts = RequestEngineOpts;

/**
 * ApiClient is every call of the service in one object, for the CLI: a BuildersClient and a CiClient over one
 * RequestEngine (one connection pool, one retry policy). Actions use the BuildersClient alone.
 */
export class ApiClient {
  readonly builders: BuildersClient;
  readonly ci: CiClient;
  readonly #engine: RequestEngine;

  constructor(opts: ApiClientOpts) {
    this.#engine = new RequestEngine(opts);
    this.builders = new BuildersClient({engine: this.#engine});
    this.ci = new CiClient({engine: this.#engine});
  }

  assignBuilder(profileName: string, opts?: CallOpts): Promise<AssignResponse> {
    return this.builders.assignBuilder(profileName, opts);
  }
  getBuilderDetails(builderId: string, opts?: GetBuilderDetailsOpts): Promise<BuilderDetails> {
    return this.builders.getBuilderDetails(builderId, opts);
  }
  teardownBuilder(builderId: string, opts?: GetBuilderDetailsOpts): Promise<TeardownResult> {
    return this.builders.teardownBuilder(builderId, opts);
  }
  listBuilderProfiles(opts?: ListBuilderProfilesOpts): Promise<BuilderProfile[]> {
    return this.builders.listBuilderProfiles(opts);
  }
  resetBuilderProfileCache(profileId: string, opts?: CallOpts): Promise<unknown> {
    return this.builders.resetBuilderProfileCache(profileId, opts);
  }

  listStacks(query?: ListStacksQuery, opts?: CallOpts): Promise<Stack[]> {
    return this.ci.listStacks(query, opts);
  }
  listRunnerImages(query?: ListRunnerImagesQuery, opts?: CallOpts): Promise<RunnerImagePage> {
    return this.ci.listRunnerImages(query, opts);
  }
  listAllRunnerImages(query?: Omit<ListRunnerImagesQuery, 'page'>, opts?: CallOpts): Promise<RunnerImage[]> {
    return this.ci.listAllRunnerImages(query, opts);
  }
  createRunnerImage(req: CreateRunnerImageRequest, opts?: CallOpts): Promise<RunnerImage> {
    return this.ci.createRunnerImage(req, opts);
  }
  updateRunnerImage(imageId: string, req: UpdateRunnerImageRequest, opts?: CallOpts): Promise<RunnerImage> {
    return this.ci.updateRunnerImage(imageId, req, opts);
  }
  listRunners(query?: ListRunnersQuery, opts?: CallOpts): Promise<Runner[]> {
    return this.ci.listRunners(query, opts);
  }
  getRunner(runnerId: string, opts?: CallOpts): Promise<Runner> {
    return this.ci.getRunner(runnerId, opts);
  }
  createRunner(req: CreateRunnerRequest, opts?: CallOpts): Promise<Runner> {
    return this.ci.createRunner(req, opts);
  }
  updateRunner(runnerId: string, req: UpdateRunnerRequest, opts?: CallOpts): Promise<Runner> {
    return this.ci.updateRunner(runnerId, req, opts);
  }
  deleteRunner(runnerId: string, opts?: CallOpts): Promise<Runner> {
    return this.ci.deleteRunner(runnerId, opts);
  }

  /** Closes the transport the two clients share (also an injected one). */
  close(): void {
    this.#engine.close();
  }
}
