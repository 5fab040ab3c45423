import {existsSync, rmSync} from 'node:fs';
import {
  errorMessage,
  postStepCleanup,
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
export async function cleanup(deps: CleanupDeps): Promise<PostCleanupResult> {
  const {io} = deps;
  const tmpDir = io.state.get(State.TmpDir);
  if (tmpDir && existsSync(tmpDir)) {
    try {
      rmSync(tmpDir, {recursive: true, force: true});
      io.logger.info(`Removed ${tmpDir}`);
    } catch (e) {
      io.logger.warning(`Failed to remove ${tmpDir}: ${errorMessage(e)}`);
    }
  }
  const builder = io.getInput(Input.Builder);
  if (builder !== '') {
    io.logger.info(
      `The build ran on builder "${builder}" (builder input), which this step did not create: nothing to tear down.`
    );
  }
  return postStepCleanup({...deps, apiKeyInput: Input.ApiKey});
}
