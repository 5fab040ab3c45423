import {randomBytes} from 'node:crypto';
import {ApiError, errorMessage, InputError} from '../errors.js';
import {Buildx, BuildxError} from '../buildx/buildx.js';
import {lastLine, type Exec} from '../exec.js';
import type {Logger} from '../logger.js';
import type {StateStore} from '../state.js';
import {CancelledError} from './cancelled-error.js';
import {BuilderFailedError, BuilderTimeoutError} from './readiness.js';

/** State key under which main records the local fallback builder it created, for post to remove. */
export const FALLBACK_BUILDER_STATE = 'fallbackBuilder';

/** buildx builder names of local fallback builders start with this. */
export const FALLBACK_BUILDER_PREFIX = 'remote-builder-fallback-';

/** HTTP statuses that say the request or the configuration is wrong: another builder would not help. */
const CLIENT_FAULT = new Set([400, 401, 403, 404, 405, 410, 413, 415, 422]);

/**
 * Why a failed provision may fall back to a local builder: the service could not give a ready builder
 * (5xx, 408/409/429, no answer, never ready, failed, unusable TLS material). undefined when it must not:
 * cancellation, bad input, a key or profile the service refuses (4xx), local buildx trouble, anything unknown.
 */
export function fallbackReason(e: unknown): string | undefined {
  // A list of profiles fails with one error per profile; the last one, its cause, decides.
  let cur: unknown = e;
  for (let depth = 0; depth < 5; depth++) {
    if (cur instanceof CancelledError || cur instanceof InputError || cur instanceof BuildxError) return undefined;
    if (cur instanceof BuilderTimeoutError) return 'no remote builder was ready within the timeout';
    if (cur instanceof BuilderFailedError) return 'the remote builder failed';
    if (cur instanceof ApiError) {
      if (cur.status === undefined) return `the service did not answer (${cur.code ?? 'network error'})`;
      if (CLIENT_FAULT.has(cur.status)) return undefined;
      return `the service answered HTTP ${cur.status}`;
    }
    if (!(cur instanceof Error) || cur.cause === undefined) return undefined;
    cur = cur.cause;
  }
  return undefined;
}

export interface LocalFallbackOpts {
  exec: Exec;
  /** The docker CLI; default `docker`. */
  docker?: string;
  logger: Logger;
  state: StateStore;
  /** buildx builder name; default `remote-builder-fallback-<8 hex>`. */
  name?: string;
  signal?: AbortSignal;
  /** Bound on `buildx create` and on the bootstrap (which pulls the BuildKit image); default 180000. */
  timeoutMs?: number;
}

export interface LocalFallbackBuilder {
  name: string;
  /** Output of `buildx inspect --bootstrap`. */
  inspectOutput: string;
}

/**
 * Creates and boots a local builder with the docker-container driver. Not the runner's default builder:
 * on GitHub's runners that is the `docker` driver, which cannot build several platforms at once, export
 * cache or attach attestations (useblacksmith/setup-docker-builder#76 → #86). A builder of our own is
 * also isolated from builders the job made itself, and post can remove it. The name is saved in state
 * before it exists, so post removes it even when main is killed while creating it.
 */
export async function createLocalFallbackBuilder(opts: LocalFallbackOpts): Promise<LocalFallbackBuilder> {
  const name = opts.name ?? `${FALLBACK_BUILDER_PREFIX}${randomBytes(4).toString('hex')}`;
  const docker = opts.docker ?? 'docker';
  const timeoutMs = opts.timeoutMs ?? 180000;
  opts.state.save(FALLBACK_BUILDER_STATE, name);
  const res = await opts.exec.run(docker, ['buildx', 'create', '--name', name, '--driver', 'docker-container'], {
    timeoutMs,
    signal: opts.signal
  });
  if (res.exitCode !== 0) {
    const why = res.killed === 'timeout' ? `no answer within ${timeoutMs} ms` : lastLine(res);
    throw new BuildxError(`Failed to create the local fallback builder "${name}": ${why}`);
  }
  const buildx = new Buildx({exec: opts.exec, docker, logger: opts.logger});
  const inspectOutput = await buildx.bootstrap(name, {timeoutMs, signal: opts.signal});
  return {name, inspectOutput};
}

export interface RemoveLocalFallbackOpts {
  buildx: Buildx;
  logger: Logger;
  state: StateStore;
  /** Bound on `buildx rm` (it also stops the BuildKit container); default 30000. */
  timeoutMs?: number;
  /** Whether the saved name may be removed (the actions' post: a name this step made); default any. */
  accept?: (name: string) => boolean;
}

/**
 * Removes the local fallback builder recorded in state, if any (a builder already gone is fine) and forgets
 * it in state. Never throws: a failure is a warning naming the builder.
 */
export async function removeLocalFallbackBuilder(opts: RemoveLocalFallbackOpts): Promise<void> {
  const name = opts.state.get(FALLBACK_BUILDER_STATE);
  if (!name || (opts.accept && !opts.accept(name))) return;
  try {
    const res: unknown = await opts.buildx.rm(name, {timeoutMs: opts.timeoutMs ?? 30000});
    opts.logger.info(
      res === 'absent'
        ? `The local fallback builder "${name}" is already gone`
        : `Removed the local fallback builder "${name}"`
    );
  } catch (e) {
    if (/no builder .* found/i.test(errorMessage(e))) {
      opts.logger.info(`The local fallback builder "${name}" is already gone`);
    } else {
      opts.logger.warning(`${errorMessage(e)}; remove it with: docker buildx rm ${name}`);
      return;
    }
  }
  opts.state.save(FALLBACK_BUILDER_STATE, '');
}
