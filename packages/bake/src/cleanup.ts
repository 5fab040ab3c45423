import {
  buildStepCleanup,
  type ActionIO,
  type BuilderApi,
  type Buildx,
  type PostCleanupResult
} from '@remote-builder-actions/core';
import {Input, State} from './context.js';

export interface CleanupDeps {
  io: ActionIO;
  makeApi?: (apiUrl: string, token: string) => BuilderApi & {close(): void};
  buildx?: Buildx;
}

/**
 * The bake action's post step, the same as build-push's: remove the private folder if main could not, then
 * buildx rm, certificates, and tear down whatever main did not. Never fails the job.
 */
export function cleanup(deps: CleanupDeps): Promise<PostCleanupResult> {
  return buildStepCleanup({
    ...deps,
    tmpDirState: State.TmpDir,
    builderInput: Input.Builder,
    apiKeyInput: Input.ApiKey
  });
}
