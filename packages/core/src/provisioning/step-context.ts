import type {Buildx} from '../buildx/buildx.js';
import type {BuildxVersionRequest} from '../buildx-install/buildx-version.js';
import type {InstalledBuildx} from '../buildx-install/index.js';
import {systemClock, type Clock} from '../clock.js';
import {GitHubContext} from '../docker/github-context.js';
import {NodeExec, type Exec} from '../exec.js';
import type {ActionIO} from '../adapters/action-io.js';
import {runLocalChecks, type LocalCheckResult, type LocalChecks} from './local-checks.js';
import {execWithEnv, setUpStepBuildx} from './step-buildx.js';
import {findsBuildxPlugin, stepBuildx, type ProvisionerDeps, type StepDeps} from './step-deps.js';
import {buildSummaryEnabled} from './summary-env.js';

/**
 * Everything a step runs with, made once by openStepContext (the composition root of every action's main):
 * the runner (io), the clock, docker (exec, CLI, buildx: the step's buildx, installed or the runner's), the
 * GitHub context, and the provisioning collaborators tests inject (API factory, probe, schedule, name).
 */
export interface StepContext extends ProvisionerDeps {
  io: ActionIO;
  clock: Clock;
  /** Runs docker with the step's buildx (every command sees its DOCKER_CONFIG when one was installed). */
  exec: Exec;
  /** The docker CLI. */
  docker: string;
  buildx: Buildx;
  github: GitHubContext;
  /** Whether to write the job summary (DOCKER_BUILD_SUMMARY), read once for the step: it may warn. */
  summary: boolean;
  /** The buildx `buildx-version` installed for the step; undefined for the runner's. */
  installed?: InstalledBuildx;
}

/**
 * Builds a step's context: installs the buildx `buildxVersion` asks for (before anything is assigned, in its
 * own log group; a failed download bills nothing), then makes every docker call of the step run it.
 */
export async function openStepContext(deps: StepDeps, buildxVersion: BuildxVersionRequest): Promise<StepContext> {
  const {io} = deps;
  const {env, installed} = await setUpStepBuildx({
    request: buildxVersion,
    io,
    signal: deps.signal,
    loadToolCache: deps.loadToolCache
  });
  const exec = execWithEnv(deps.exec ?? new NodeExec({logger: io.logger}), env);
  const docker = deps.docker ?? 'docker';
  return {
    io,
    clock: deps.clock ?? systemClock,
    exec,
    docker,
    // Decided from the injected exec, before it is wrapped: only real processes look the plugin up.
    buildx: stepBuildx({...deps, exec, docker, findBuildxPlugin: findsBuildxPlugin(deps)}, env),
    github: new GitHubContext(io.env),
    summary: buildSummaryEnabled(io),
    installed,
    makeApi: deps.makeApi,
    builderName: deps.builderName,
    probe: deps.probe,
    schedule: deps.schedule,
    signal: deps.signal
  };
}

/** The local checks of a step (see runLocalChecks), with its docker and signal: nothing is billed if one fails. */
export function checkStepLocally<T = undefined>(
  ctx: StepContext,
  checks: LocalChecks<T>
): Promise<LocalCheckResult<T>> {
  return runLocalChecks({logger: ctx.io.logger, buildx: ctx.buildx, signal: ctx.signal}, checks);
}
