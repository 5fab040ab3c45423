import {join} from 'node:path';
import {randomBytes} from 'node:crypto';
import {
  BuilderLifecycle,
  BuilderTimeoutError,
  errorMessage,
  loadBuilderState,
  platformsFromArch,
  postCleanup,
  resolveTeardownTimeoutMs,
  type Buildx,
  type PostCleanupResult,
  type ProvisionedBuilder
} from '@remote-builder-actions/core';
import type {CommandContext} from './context.js';
import {FileStateStore} from './state-file.js';

/** buildx builder names: letters, digits, '-', '_' and '.'; also a file name here. */
export const BUILDER_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/;

export interface UpOptions {
  /** Profiles to try in order. */
  profiles: string[];
  timeoutMs: number;
  /** Platforms the builders must provide ([] = no check). */
  platforms: string[];
  name: string;
  /** Make it docker's default builder. */
  use: boolean;
  statePath: string;
  certRoot: string;
}

export interface Session {
  builder: ProvisionedBuilder;
  store: FileStateStore;
  buildx: Buildx;
}

/** A fresh builder name, as core would make it. */
export function newBuilderName(): string {
  return `remote-builder-${randomBytes(4).toString('hex')}`;
}

/** Where the certificates of a builder go unless --cert-dir says otherwise. */
export function defaultCertRoot(ctx: CommandContext): string {
  return join(ctx.stateDir(), 'certs');
}

/**
 * Assigns builders, waits until they are ready, writes their certificates and creates the buildx builder,
 * saving state to `statePath` from the first answer on. On any failure or cancellation what was assigned is
 * torn down (and the state file removed when nothing is left) before the error propagates.
 */
export async function bringUp(ctx: CommandContext, o: UpOptions): Promise<Session> {
  const store = new FileStateStore(o.statePath);
  refuseIfUp(store, o.name);
  const apiUrl = ctx.apiUrl();
  const api = ctx.api(apiUrl);
  const buildx = ctx.buildx();
  // A machine without docker buildx fails here, before anything is assigned and billed.
  ctx.logger.debug(`docker buildx ${await buildx.version({signal: ctx.signal})}`);
  const lifecycle = new BuilderLifecycle({
    api,
    apiUrl,
    state: store,
    logger: ctx.logger,
    buildx,
    certRoot: o.certRoot,
    builderName: o.name,
    ...(ctx.deps.clock ? {clock: ctx.deps.clock} : {}),
    ...(ctx.deps.probe ? {probe: ctx.deps.probe} : {}),
    ...(ctx.deps.schedule ? {schedule: ctx.deps.schedule} : {})
  });
  let builder: ProvisionedBuilder;
  try {
    builder = await lifecycle.provision({
      profiles: o.profiles,
      timeoutMs: o.timeoutMs,
      setupBuildx: true,
      use: o.use,
      signal: ctx.signal
    });
    checkPlatforms(ctx, builder, o.platforms);
  } catch (e) {
    await bringDown(ctx, store, buildx).catch((err: unknown) =>
      ctx.logger.warning(`Cleaning up after the failure failed too: ${errorMessage(err)}`)
    );
    if (e instanceof BuilderTimeoutError) {
      throw new Error(`${e.message}: raise --timeout (${o.timeoutMs} ms) if the profile needs longer to start`, {
        cause: e
      });
    }
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
): Promise<PostCleanupResult> {
  // postCleanup treats unreadable state as "nothing to clean up"; here it must not be deleted unread.
  loadBuilderState(store);
  const result = await postCleanup({
    logger: ctx.logger,
    state: store,
    buildx,
    makeApi: url => ctx.api(url),
    teardownTimeoutMs: resolveTeardownTimeoutMs(ctx.env)
  });
  if (result.maybeBilled.length === 0) store.remove();
  return result;
}

function refuseIfUp(store: FileStateStore, name: string): void {
  if (!store.exists()) return;
  let state;
  try {
    state = loadBuilderState(store);
  } catch (e) {
    throw new Error(`${store.path} is unreadable (${errorMessage(e)}): check it, remove it, or pick another --name`);
  }
  const pending = state ? state.builderIds.filter(id => !state.tornDownIds.includes(id)) : [];
  if (state && (pending.length > 0 || state.buildxCreated)) {
    throw new Error(
      `builder "${name}" is already up (${store.path}): run "remote-builder builder down --name ${name}" first, or pick another --name`
    );
  }
  store.remove();
}

function checkPlatforms(ctx: CommandContext, b: ProvisionedBuilder, wanted: string[]): void {
  if (wanted.length === 0) return;
  if (b.platforms.length === 0) {
    ctx.logger.warning(`The service did not say which platforms the builders run: cannot check --platforms`);
    return;
  }
  const missing = platformsFromArch(wanted.join(',')).filter(p => !b.platforms.includes(p));
  if (missing.length > 0) {
    throw new Error(
      `profile "${b.profile}" gives ${b.platforms.join(', ')} but not ${missing.join(', ')}: enable the missing architecture on the builder profile in the web UI (builds for it would fail with "exec format error")`
    );
  }
}
