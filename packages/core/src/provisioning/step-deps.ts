import {Buildx} from '../buildx/buildx.js';
import type {Clock} from '../clock.js';
import type {Exec} from '../exec.js';
import type {PollSchedule} from '../lifecycle/readiness.js';
import type {TlsProbe} from '../lifecycle/tls-probe.js';
import type {ActionIO} from './action-io.js';
import type {MakeBuilderApi} from './builder-api-factory.js';
import type {LoadToolCache} from './step-buildx.js';

/**
 * What every action step (configure, build-push, bake; main and post) runs with. Only `io` is required:
 * the rest are injected by tests and default to production (createBuilderApiClient, NodeExec, `docker`,
 * the system clock, the mutual-TLS probe, the default poll schedule, `remote-builder-<random>`).
 */
export interface StepDeps {
  io: ActionIO;
  /** Builds the API client; default createBuilderApiClient with the extended assignment limit. */
  makeApi?: MakeBuilderApi;
  /** Runs docker; default NodeExec. */
  exec?: Exec;
  /** The docker CLI; default `docker`. */
  docker?: string;
  /** docker buildx; default one over `exec` and `docker`. */
  buildx?: Buildx;
  clock?: Clock;
  probe?: TlsProbe;
  schedule?: PollSchedule;
  /** Aborted on SIGINT/SIGTERM. */
  signal?: AbortSignal;
  /** Name of the buildx builder to create; default newBuilderName(). */
  builderName?: string;
  /** The tool cache `buildx-version` installs into, loaded only when it is set; default defaultLoadToolCache. */
  loadToolCache?: LoadToolCache;
}

/** The collaborators a step injects into the Provisioner (the rest it builds from the step's inputs). */
export type ProvisionerDeps = Pick<StepDeps, 'makeApi' | 'builderName' | 'clock' | 'probe' | 'schedule' | 'signal'>;

/** The provisioner's collaborators among `deps`, only those given (so production defaults apply). */
export function injectedDeps(deps: ProvisionerDeps): ProvisionerDeps {
  return {
    ...(deps.makeApi ? {makeApi: deps.makeApi} : {}),
    ...(deps.builderName ? {builderName: deps.builderName} : {}),
    ...(deps.clock ? {clock: deps.clock} : {}),
    ...(deps.probe ? {probe: deps.probe} : {}),
    ...(deps.schedule ? {schedule: deps.schedule} : {}),
    ...(deps.signal ? {signal: deps.signal} : {})
  };
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
      ...(deps.exec ? {exec: deps.exec} : {}),
      ...(deps.docker ? {docker: deps.docker} : {}),
      ...(Object.keys(env).length > 0 ? {env} : {})
    })
  );
}
