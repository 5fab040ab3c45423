import {errorMessage} from '../errors.js';
import type {Logger} from '../logger.js';
import {Buildx} from '../buildx/buildx.js';
import type {ActionIO} from '../action-io.js';
import {ApiClient} from '../api/api-client.js';
import {resolveCredentials} from '../inputs.js';
import {removeCertDir} from '../certs/cert-store.js';
import {loadBuilderState, saveBuilderState, type StateStore} from '../state.js';
import type {BuilderApi} from './builder-api.js';
import {teardownBuilders, type TeardownReport} from './teardown.js';

export interface PostCleanupOpts {
  logger: Logger;
  state: StateStore;
  /** The API client for the URL main used; throws when credentials are missing. */
  makeApi: (apiUrl: string) => BuilderApi;
  buildx: Buildx;
  /** Bound on `buildx rm` (a stuck buildx must not hang the job). */
  rmTimeoutMs?: number;
  /** Bound on the whole teardown. */
  teardownTimeoutMs?: number;
}

export interface PostCleanupResult {
  /** False when main saved no state: nothing was assigned. */
  hadState: boolean;
  teardown: TeardownReport;
  /** Builders that may still be billed (teardown failed or impossible). */
  maybeBilled: string[];
}

/**
 * The post step shared by every action: forget the buildx builder, remove the certificates and tear
 * down every builder main assigned and did not tear down itself. Warns, never throws.
 */
export async function postCleanup(opts: PostCleanupOpts): Promise<PostCleanupResult> {
  const {logger} = opts;
  const empty: TeardownReport = {tornDown: [], alreadyGone: [], failed: []};
  let state;
  try {
    state = loadBuilderState(opts.state);
  } catch (e) {
    logger.warning(`Cannot read the state main saved (${errorMessage(e)}); nothing can be cleaned up from here`);
    return {hadState: false, teardown: empty, maybeBilled: []};
  }
  if (!state) {
    logger.info('Nothing to clean up: main assigned no builder.');
    return {hadState: false, teardown: empty, maybeBilled: []};
  }
  const current = state;

  if (current.buildxCreated) {
    await logger.group(`Removing buildx builder "${current.builderName}"`, async () => {
      const timeoutMs = opts.rmTimeoutMs ?? 10000;
      try {
        if (await opts.buildx.exists(current.builderName, {timeoutMs})) {
          await opts.buildx.rm(current.builderName, {timeoutMs});
          logger.info(`Removed buildx builder "${current.builderName}"`);
        } else {
          logger.info(`buildx builder "${current.builderName}" is already gone`);
        }
      } catch (e) {
        logger.warning(errorMessage(e));
      }
    });
  }

  if (current.certDir) {
    await logger.group('Removing certificates', async () => {
      try {
        await removeCertDir(current.certDir);
        logger.info(`Removed ${current.certDir}`);
      } catch (e) {
        logger.warning(`Failed to remove ${current.certDir}: ${errorMessage(e)}`);
      }
    });
  }

  const pending = current.builderIds.filter(id => !current.tornDownIds.includes(id));
  if (pending.length === 0) {
    logger.info(
      current.builderIds.length > 0 ? 'Every builder was already torn down by main.' : 'No builder was assigned.'
    );
    return {hadState: true, teardown: empty, maybeBilled: []};
  }

  const teardown = await logger.group(
    `Tearing down ${pending.length} builder${pending.length === 1 ? '' : 's'}`,
    async () => {
      let api: BuilderApi;
      try {
        api = opts.makeApi(current.apiUrl);
      } catch (e) {
        return {tornDown: [], alreadyGone: [], failed: pending.map(id => ({id, error: errorMessage(e)}))};
      }
      return teardownBuilders(api, pending, {logger, timeoutMs: opts.teardownTimeoutMs ?? 30000});
    }
  );
  current.tornDownIds.push(...teardown.tornDown, ...teardown.alreadyGone);
  saveBuilderState(opts.state, current);

  const maybeBilled = teardown.failed.map(f => f.id);
  for (const f of teardown.failed) {
    logger.warning(
      `Builder ${f.id} could not be torn down and MAY STILL BE BILLED: ${f.error}. Tear it down in the web UI (builders of profile "${current.profile ?? 'unknown'}").`
    );
  }
  return {hadState: true, teardown, maybeBilled};
}

export interface PostStepOpts {
  io: ActionIO;
  /** Name of the action's api-key input (the key is read again: it is never saved in state). */
  apiKeyInput: string;
  makeApi?: (apiUrl: string, token: string) => BuilderApi & {close(): void};
  buildx?: Buildx;
}

/** postCleanup wired to an action step: credentials from the input or env, clients closed afterwards. */
export async function postStepCleanup(opts: PostStepOpts): Promise<PostCleanupResult> {
  const {io} = opts;
  const clients: {close(): void}[] = [];
  try {
    return await postCleanup({
      logger: io.logger,
      state: io.state,
      buildx: opts.buildx ?? new Buildx({logger: io.logger}),
      makeApi: apiUrl => {
        const {token} = resolveCredentials(io.getInput(opts.apiKeyInput), io.env, opts.apiKeyInput);
        io.logger.setSecret(token);
        const api = (opts.makeApi ?? ((url, t) => new ApiClient({baseUrl: url, token: t})))(apiUrl, token);
        clients.push(api);
        return api;
      }
    });
  } finally {
    clients.forEach(c => c.close());
  }
}
