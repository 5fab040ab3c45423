import {
  ApiClient,
  Buildx,
  postCleanup,
  resolveCredentials,
  type ActionIO,
  type BuilderApi,
  type PostCleanupResult
} from '@remote-builder-actions/core';
import {Input} from './context.js';

export interface CleanupDeps {
  io: ActionIO;
  makeApi?: (apiUrl: string, token: string) => BuilderApi & {close(): void};
  buildx?: Buildx;
}

/** The configure action's post step: buildx rm, remove the certificates, tear every builder down. Never fails the job. */
export async function cleanup(deps: CleanupDeps): Promise<PostCleanupResult> {
  const {io} = deps;
  const clients: {close(): void}[] = [];
  try {
    return await postCleanup({
      logger: io.logger,
      state: io.state,
      buildx: deps.buildx ?? new Buildx({logger: io.logger}),
      makeApi: apiUrl => {
        const {token} = resolveCredentials(io.getInput(Input.ApiKey), io.env, Input.ApiKey);
        io.logger.setSecret(token);
        const api = (deps.makeApi ?? ((url, t) => new ApiClient({baseUrl: url, token: t})))(apiUrl, token);
        clients.push(api);
        return api;
      }
    });
  } finally {
    clients.forEach(c => c.close());
  }
}
