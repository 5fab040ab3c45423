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
 * The build-push action's post step: remove the build's private folder if main could not, then what the
 * configure action's post does (buildx rm, certificates, tear down what main did not). Never fails the job.
 */
export function cleanup(deps: CleanupDeps): Promise<PostCleanupResult> {
  return buildStepCleanup({
    ...deps,
    tmpDirState: State.TmpDir,
    builderInput: Input.Builder,
    apiKeyInput: Input.ApiKey
  });
}
