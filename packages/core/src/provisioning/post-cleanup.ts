import type {Clock} from '../clock.js';
import {errorMessage} from '../errors.js';
import type {Logger} from '../logger.js';
import {Buildx} from '../buildx/buildx.js';
import type {ActionIO} from '../adapters/action-io.js';
import {BuildersClient} from '../api/builders-client.js';
import {ACTION_INPUT_NAMES} from '../api/request-engine.js';
import {resolveCredentials} from '../credentials.js';
import {removeCertDir} from '../certs/cert-store.js';
import {loadBuilderState, pendingBuilderIds, saveBuilderState, type StateStore} from '../state.js';
import type {BuilderApi} from '../api/builder-api.js';
import {noTeardown, tearDownState, type TeardownReport} from '../lifecycle/teardown.js';
import {
  BUILDX_RM_TIMEOUT_MS,
  DEFAULT_TEARDOWN_TIMEOUT_MS,
  teardownLimits,
  type TeardownLimits
} from '../lifecycle/teardown-limits.js';
import {GitHubContext} from '../docker/github-context.js';
import type {BakeDefinitionText} from '../report/bake-definition-file.js';
import type {BuildInputs} from '../report/build-inputs.js';
import {closeRun, loadRun} from '../report/run-recorder.js';
import type {PostStateGuard} from './post-state-guard.js';
import {renderStepSummary} from '../report/step-summary.js';

export interface PostCleanupOpts {
  logger: Logger;
  state: StateStore;
  /** The API client for the URL main used; throws when credentials are missing. */
  makeApi: (apiUrl: string) => BuilderApi;
  buildx: Buildx;
  /** The teardown's limits; default teardownLimits('post') without the variable. */
  limits?: TeardownLimits;
  /** Times the teardown's rounds and its budget; default the system clock. */
  clock?: Clock;
  /** What assigned the builders, in messages (default "main", the actions' main step; the CLI: "builder up"). */
  assignedBy?: string;
  /** Checks the state before it is acted on (the actions' post: the log could have planted it); none: trusted. */
  guard?: PostStateGuard;
}

export interface PostCleanupResult {
  /** False when main saved no state: nothing was assigned. */
  hadState: boolean;
  teardown: TeardownReport;
  /** Builders that may still be billed (teardown failed or impossible). */
  maybeBilled: string[];
}

/**
 * The post step shared by every action and `builder down`: the one teardown (tearDownState) of what the
 * saved state lists as not torn down, the buildx builder with it, then the certificates. Warns, never throws.
 */
export async function postCleanup(opts: PostCleanupOpts): Promise<PostCleanupResult> {
  const {logger} = opts;
  const by = opts.assignedBy ?? 'main';
  let state;
  try {
    state = loadBuilderState(opts.state);
  } catch (e) {
    logger.warning(`Cannot read the state ${by} saved (${errorMessage(e)}); nothing can be cleaned up from here`);
    return {hadState: false, teardown: noTeardown(), maybeBilled: []};
  }
  if (!state) {
    logger.info(`Nothing to clean up: ${by} assigned no builder.`);
    return {hadState: false, teardown: noTeardown(), maybeBilled: []};
  }
  const current = state;
  const {guard} = opts;
  const pendingIds = pendingBuilderIds(current);
  // Refused values are not acted on: no request to a foreign URL, no buildx rm of a foreign name, no rm -rf.
  const apiUrl = guard && pendingIds.length > 0 ? guard.apiUrl(current.apiUrl) : current.apiUrl;
  const buildxCreated = current.buildxCreated && (!guard || guard.builderName(current.builderName) !== undefined);
  const certDir = guard ? (guard.path('the certificate folder', current.certDir) ?? '') : current.certDir;
  const what = [
    buildxCreated ? `buildx builder "${current.builderName}"` : '',
    apiUrl !== undefined && pendingIds.length > 0 ? pendingIds.join(', ') : ''
  ]
    .filter(Boolean)
    .join(' and ');
  // Teardown (billing) and buildx rm run at once: rm is quick while the endpoints still answer.
  const teardown = await logger.group(what ? `Removing ${what}` : 'Cleaning up', async () => {
    const {report, buildx} = await tearDownState(current, {
      api: () => opts.makeApi(apiUrl ?? ''),
      buildx: opts.buildx,
      logger,
      clock: opts.clock,
      limits: opts.limits ?? POST_LIMITS,
      builders: apiUrl !== undefined,
      buildxBuilder: buildxCreated
    });
    if (buildx === 'removed') logger.info(`Removed buildx builder "${current.builderName}"`);
    if (buildx === 'absent') logger.info(`buildx builder "${current.builderName}" is already gone`);
    if (pendingIds.length === 0) {
      logger.info(
        current.builderIds.length > 0 ? `Every builder was already torn down by ${by}.` : 'No builder was assigned.'
      );
    }
    return report;
  });

  if (certDir) {
    try {
      await removeCertDir(certDir);
      logger.info(`Removed ${certDir}`);
    } catch (e) {
      logger.warning(`Failed to remove ${certDir}: ${errorMessage(e)}`);
    }
  }
  saveBuilderState(opts.state, current);

  const maybeBilled = teardown.failed.map(f => f.id);
  for (const f of teardown.failed) {
    logger.warning(
      `Builder ${f.id} could not be torn down and MAY STILL BE BILLED: ${f.error}. Tear it down in the web UI (builders of profile "${current.profile ?? 'unknown'}").`
    );
  }
  return {hadState: true, teardown, maybeBilled};
}

/** Post's limits when the variable is not read (or is bad): the defaults of teardownLimits('post'). */
const POST_LIMITS: TeardownLimits = {budgetMs: DEFAULT_TEARDOWN_TIMEOUT_MS, rmMs: BUILDX_RM_TIMEOUT_MS};

export interface PostStepOpts {
  io: ActionIO;
  /** Name of the action's api-key input (the key is read again: it is never saved in state). */
  apiKeyInput: string;
  makeApi?: (apiUrl: string, token: string) => BuilderApi & {close(): void};
  buildx?: Buildx;
  /** Checks what post reads from state (see PostStateGuard). */
  guard?: PostStateGuard;
  /** What docker's summary sections show besides the run record (read by post, never saved in state). */
  summary?: PostSummaryOpts;
}

/** docker's "Build inputs" and "Bake definition", as post reads them. */
export interface PostSummaryOpts {
  /** The step's inputs, secret values reduced to their keys (readSummaryInputs); read only for a summary. */
  inputs?: () => BuildInputs;
  /** bake: the definition main left in its private folder (readBakeDefinition, before post removes it). */
  bakeDefinition?: BakeDefinitionText;
  /** Default: now. */
  now?: number;
}

/** postCleanup wired to an action step: credentials from the input or env, clients closed afterwards. */
export async function postStepCleanup(opts: PostStepOpts): Promise<PostCleanupResult> {
  const {io} = opts;
  const clients: {close(): void}[] = [];
  try {
    let limits: TeardownLimits | undefined;
    try {
      limits = teardownLimits('post', io.env);
    } catch (e) {
      io.logger.warning(`${errorMessage(e)}; using the default`);
    }
    const result = await postCleanup({
      logger: io.logger,
      state: io.state,
      guard: opts.guard,
      limits,
      buildx: opts.buildx ?? new Buildx({logger: io.logger}),
      makeApi: apiUrl => {
        const {token} = resolveCredentials(io.getInput(opts.apiKeyInput), io.env, opts.apiKeyInput);
        io.logger.setSecret(token);
        const api = (
          opts.makeApi ?? ((url, t) => new BuildersClient({baseUrl: url, token: t, inputNames: ACTION_INPUT_NAMES}))
        )(apiUrl, token);
        clients.push(api);
        return api;
      }
    });
    await writeRunReport(io, result.teardown, opts.summary);
    return result;
  } finally {
    clients.forEach(c => c.close());
  }
}

/**
 * Post writes the job summary of the run in every outcome, since billing ends here: what main recorded (also
 * a failure before anything was assigned), with post's own teardown applied, and docker's sections (the record's
 * link, the inputs, bake's definition). Off when DOCKER_BUILD_SUMMARY was false for main; never fails post.
 */
export async function writeRunReport(
  io: ActionIO,
  teardown: TeardownReport,
  opts: PostSummaryOpts = {}
): Promise<void> {
  const run = loadRun(io.state);
  if (!run) return;
  if (!run.summary) {
    io.logger.debug('postStepCleanup: DOCKER_BUILD_SUMMARY is false; no job summary');
    return;
  }
  try {
    const github = new GitHubContext(io.env);
    const runUrl =
      github.repository !== undefined && io.env['GITHUB_RUN_ID'] ? github.workflowRunUrl(false) : undefined;
    const record = closeRun(run, teardown, opts.now ?? Date.now());
    const summary = renderStepSummary(record, {
      runUrl,
      inputs: opts.inputs?.(),
      bakeDefinition: opts.bakeDefinition
    });
    await io.writeMarkdownSummary(summary);
  } catch (e) {
    io.logger.warning(`Failed to write the job summary: ${errorMessage(e)}`);
  }
}
