import {
  createBuilderApiClient,
  postStepCleanup,
  type ActionIO,
  type BuilderApi,
  type Buildx,
  type PostCleanupResult
} from '@remote-builder-actions/core';
import {Input} from './context.js';

export interface CleanupDeps {
  io: ActionIO;
  makeApi?: (apiUrl: string, token: string) => BuilderApi & {close(): void};
  buildx?: Buildx;
}

/** The configure action's post step: buildx rm, remove the certificates, tear every builder down. Never fails the job. */
export function cleanup(deps: CleanupDeps): Promise<PostCleanupResult> {
  const {io} = deps;
  return postStepCleanup({
    makeApi: (apiUrl, token) => createBuilderApiClient({apiUrl, token, env: io.env, logger: io.logger}),
    ...deps,
    apiKeyInput: Input.ApiKey
  });
}
