import {Buildx} from '../buildx/buildx.js';
import type {Clock} from '../clock.js';
import type {Exec} from '../exec.js';
import type {PollSchedule} from '../lifecycle/readiness.js';
import type {TlsProbe} from '../lifecycle/tls-probe.js';
import type {ActionIO} from '../adapters/action-io.js';
import type {MakeBuilderApi} from './builder-api-factory.js';
import type {LoadToolCache} from './step-buildx.js';

/** The collaborators of provisioning that tests inject; production defaults apply to those left out. */
export interface ProvisionerDeps {
  /** Builds the API client; default createBuilderApiClient with the extended assignment limit. */
  makeApi?: MakeBuilderApi;
  /** buildx builder name; default newBuilderName(). */
  builderName?: string;
  clock?: Clock;
  probe?: TlsProbe;
  schedule?: PollSchedule;
  /** Cancellation (SIGINT/SIGTERM). */
  signal?: AbortSignal;
}

/**
 * What every action step (configure, build-push, bake; main and post) runs with. Only `io` is required:
 * the rest are injected by tests and default to production (createBuilderApiClient, NodeExec, `docker`,
 * the system clock, the mutual-TLS probe, the default poll schedule, `remote-builder-<random>`).
 * openStepContext turns them into the step's one context.
 */
export interface StepDeps extends ProvisionerDeps {
  io: ActionIO;
  /** Runs docker; default NodeExec. */
  exec?: Exec;
  /** The docker CLI; default `docker`. */
  docker?: string;
  /** docker buildx; default one over `exec` and `docker`. */
  buildx?: Buildx;
  /** The tool cache `buildx-version` installs into, loaded only when it is set; default defaultLoadToolCache. */
  loadToolCache?: LoadToolCache;
  /**
   * Whether the buildx plugin is looked up on this machine and asked for its version directly; default only
   * when `exec` is not injected (a test's fake exec scripts every call, whatever docker this machine has).
   */
  findBuildxPlugin?: boolean;
}

/**
 * The step's docker buildx: the injected one, else one over the injected exec and docker CLI, running every
 * command with `env` (the DOCKER_CONFIG of a buildx installed by `buildx-version`; see setUpStepBuildx).
 */
export function stepBuildx(deps: StepDeps, env: Record<string, string> = {}): Buildx {
  return (
    deps.buildx ??
    new Buildx({
      logger: deps.io.logger,
      exec: deps.exec,
      docker: deps.docker,
      env: Object.keys(env).length > 0 ? env : undefined,
      findPlugin: findsBuildxPlugin(deps)
    })
  );
}

/** Whether the step looks the buildx plugin up on this machine: as told, else only when exec is not injected. */
export function findsBuildxPlugin(deps: Pick<StepDeps, 'exec' | 'findBuildxPlugin'>): boolean {
  return deps.findBuildxPlugin ?? deps.exec === undefined;
}
