import {existsSync, rmSync} from 'node:fs';
import type {ActionIO} from '../action-io.js';
import {Buildx} from '../buildx/buildx.js';
import {errorMessage} from '../errors.js';
import type {BuilderApi} from '../lifecycle/builder-api.js';
import {createBuilderApiClient} from '../lifecycle/builder-api-client.js';
import {removeLocalFallbackBuilder} from '../lifecycle/local-fallback.js';
import {postStepCleanup, type PostCleanupResult} from '../lifecycle/post-cleanup.js';

export interface BuildStepCleanupOpts {
  io: ActionIO;
  /** State key under which main saved its private build folder. */
  tmpDirState: string;
  /** Name of the action's `builder` input. */
  builderInput: string;
  /** Name of the action's api-key input. */
  apiKeyInput: string;
  makeApi?: (apiUrl: string, token: string) => BuilderApi & {close(): void};
  buildx?: Buildx;
}

/**
 * The post step of the build actions (build-push, bake): remove the build's private folder if main could
 * not, then what the configure action's post does (buildx rm, certificates, tear down what main did not).
 * Never fails the job.
 */
export async function buildStepCleanup(opts: BuildStepCleanupOpts): Promise<PostCleanupResult> {
  const {io} = opts;
  const tmpDir = io.state.get(opts.tmpDirState);
  if (tmpDir && existsSync(tmpDir)) {
    try {
      rmSync(tmpDir, {recursive: true, force: true});
      io.logger.info(`Removed ${tmpDir}`);
    } catch (e) {
      io.logger.warning(`Failed to remove ${tmpDir}: ${errorMessage(e)}`);
    }
  }
  const builder = io.getInput(opts.builderInput);
  if (builder !== '') {
    io.logger.info(
      `The build ran on builder "${builder}" (builder input), which this step did not create: nothing to tear down.`
    );
  }
  const buildx = opts.buildx ?? new Buildx({logger: io.logger});
  // A local fallback builder main could not remove (killed, or its removal failed).
  await removeLocalFallbackBuilder({buildx, logger: io.logger, state: io.state});
  return postStepCleanup({
    io,
    apiKeyInput: opts.apiKeyInput,
    makeApi:
      opts.makeApi ?? ((apiUrl, token) => createBuilderApiClient({apiUrl, token, env: io.env, logger: io.logger})),
    buildx
  });
}
