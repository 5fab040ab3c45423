import type {AssignResponse, BuilderDetails} from './types.js';

/** The part of the API client the lifecycle uses; the BuildersClient implements it, tests fake it. */
export interface BuilderApi {
  assignBuilder(profileName: string, opts?: {signal?: AbortSignal}): Promise<AssignResponse>;
  getBuilderDetails(builderId: string, opts?: {signal?: AbortSignal; retry?: boolean}): Promise<BuilderDetails>;
  teardownBuilder(builderId: string, opts?: {signal?: AbortSignal; retry?: boolean}): Promise<{alreadyGone: boolean}>;
}
