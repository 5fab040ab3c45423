import {join} from 'node:path';
import {
  StepRun,
  assignTimeoutFor,
  closeRun,
  errorMessage,
  loadBuilderState,
  loadRun,
  pendingBuilderIds,
  postCleanup,
  teardownLimits,
  type BuilderSize,
  type Buildx,
  type PostCleanupResult,
  type ProvisionedBuilder,
  type RunRecord
} from '@remote-builder-actions/core';
import type {CommandContext} from './context.js';
import {FileStateStore} from './state-file.js';

export {BUILDER_NAME, newBuilderName} from '@remote-builder-actions/core';

export interface UpOptions {
  /** Profiles to try in order. */
  profiles: string[];
  timeoutMs: number;
  /** Platforms the builders must provide ([] = no check); checked for form before assigning. */
  platforms: string[];
  name: string;
  /** Make it docker's default builder. */
  use: boolean;
  statePath: string;
  certRoot: string;
  /** `builder run`: the command to run, which must be found before anything is assigned. */
  command?: string;
  /** --builder-size: the profile's size, for the cost after teardown when the service does not say it. */
  size?: BuilderSize;
}

export interface Session {
  builder: ProvisionedBuilder;
  store: FileStateStore;
  buildx: Buildx;
}

/** Where the certificates of a builder go unless --cert-dir says otherwise. */
export function defaultCertRoot(ctx: CommandContext): string {
  return join(ctx.stateDir(), 'certs');
}

/**
 * Brings a builder up through core's StepRun, as the actions do: local checks (docker buildx, the form
 * of --platforms, the command of `builder run`; nothing is assigned if one fails), assign, wait, write the
 * certificates and create the buildx builder, saving state to `statePath` from the first answer on. On any
 * failure or cancellation after that, what was assigned is torn down (and the state file removed when
 * nothing is left) before the error propagates.
 */
export async function bringUp(ctx: CommandContext, o: UpOptions): Promise<Session> {
  const store = new FileStateStore(o.statePath);
  refuseIfUp(store, o.name);
  const apiUrl = ctx.apiUrl();
  const buildx = ctx.buildx();
  const token = ctx.token();
  // `builder up` is configure's run: its record (the builders' billing times) is kept in the state file with
  // the rest, and `down` prints what they cost; no job summary is written from it.
  const run = new StepRun({
    action: 'configure',
    apiUrl,
    token,
    sizeHint: o.size,
    summary: false,
    state: store,
    logger: ctx.logger,
    buildx,
    timeoutMs: o.timeoutMs,
    timeoutName: '--timeout',
    env: ctx.env,
    // The CLI's client (its proxy settings), with the actions' assignment limit.
    makeApi: url => ctx.builderApi(url, assignTimeoutFor(o.timeoutMs)),
    certRoot: o.certRoot,
    builderName: o.name,
    signal: ctx.signal,
    retryHint: `run "remote-builder builder down --name ${o.name}" to try again`,
    clock: ctx.deps.clock,
    probe: ctx.deps.probe,
    schedule: ctx.deps.schedule
  });
  await run.checkLocal({
    buildx: {},
    platforms: {values: o.platforms, name: '--platforms'},
    command: o.command === undefined ? undefined : {name: o.command, env: ctx.env, cwd: ctx.deps.cwd ?? process.cwd()}
  });
  let builder: ProvisionedBuilder;
  try {
    builder = await run.provision({profiles: o.profiles, setupBuildx: true, use: o.use});
    // After the assignment: the service's profile listing does not show a profile's architectures (spec
    // §4.5), so only the ready builders tell which platforms they run; a mismatch is torn down below.
    run.checkOffered(builder, o.platforms, '--platforms');
  } catch (e) {
    await bringDown(ctx, store, buildx).catch((err: unknown) =>
      ctx.logger.warning(`Cleaning up after the failure failed too: ${errorMessage(err)}`)
    );
    throw e;
  }
  return {builder, store, buildx};
}

/**
 * Removes the buildx builder and the certificates and tears down every builder the state lists, like the
 * actions' post step. The state file is removed once nothing may be billed; otherwise it stays for a retry.
 */
export async function bringDown(
  ctx: CommandContext,
  store: FileStateStore,
  buildx: Buildx
): Promise<PostCleanupResult & {run?: RunRecord}> {
  // postCleanup treats unreadable state as "nothing to clean up"; here it must not be deleted unread.
  loadBuilderState(store);
  const saved = loadRun(store);
  // When each teardown answered: billing ends there (spec §3), not when buildx rm, run beside it, is done.
  const answeredAt = new Map<string, number>();
  const result = await postCleanup({
    logger: ctx.logger,
    state: store,
    buildx,
    makeApi: url => {
      const api = ctx.api(url).builders;
      return {
        assignBuilder: (profile, o) => api.assignBuilder(profile, o),
        getBuilderDetails: (id, o) => api.getBuilderDetails(id, o),
        teardownBuilder: async (id, o) => {
          const answer = await api.teardownBuilder(id, o);
          answeredAt.set(id, Date.now());
          return answer;
        }
      };
    },
    limits: teardownLimits('post', ctx.env),
    assignedBy: '"builder up"'
  });
  if (result.maybeBilled.length === 0) store.remove();
  // What the run was billed, this teardown applied (the state of a CLI older than the record has none).
  if (!saved) return result;
  const run = closeRun(saved, result.teardown, Date.now());
  for (const b of run.builders) b.tornDownAt = answeredAt.get(b.id) ?? b.tornDownAt;
  return {...result, run};
}

function refuseIfUp(store: FileStateStore, name: string): void {
  if (!store.exists()) return;
  let state;
  try {
    state = loadBuilderState(store);
  } catch (e) {
    throw new Error(`${store.path} is unreadable (${errorMessage(e)}): check it, remove it, or pick another --name`);
  }
  if (state && (pendingBuilderIds(state).length > 0 || state.buildxCreated)) {
    throw new Error(
      `builder "${name}" is already up (${store.path}): run "remote-builder builder down --name ${name}" first, or pick another --name`
    );
  }
  store.remove();
}
