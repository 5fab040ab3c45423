import type {Buildx} from '../buildx/buildx.js';
import {systemClock, type Clock} from '../clock.js';
import {BuildFiles} from '../docker/build-result.js';
import type {BuildContext} from './build-attempts.js';
import {GitHubContext} from '../docker/github-context.js';
import {NodeExec, type Exec, type ExecResult} from '../exec.js';
import {buildkitSupportsAttestations} from '../docker/buildkit-support.js';
import type {ActionIO} from './action-io.js';
import {BuildStepState, type BuildStepInputs} from './action-inputs.js';
import {buildStepSetup, runRemoteBuild, type BuildTarget} from './remote-build.js';
import {execWithEnv, setUpStepBuildx} from './step-buildx.js';
import {buildSummaryEnabled} from './summary-env.js';
import {stepBuildx, type StepDeps} from './step-deps.js';

/** What a build step's own work (prepare, build) runs with, made from its deps. */
export interface BuildStepTools {
  github: GitHubContext;
  exec: Exec;
  /** The docker CLI. */
  docker: string;
  buildx: Buildx;
  /** The step's private folder (iidfile, metadata file, secret files), removed when main ends. */
  files: BuildFiles;
  clock: Clock;
  /** Whether to write the job summary (DOCKER_BUILD_SUMMARY), read once for the step: it may warn. */
  summary: boolean;
}

export interface BuildStepOpts<P, R> {
  action: 'build-push' | 'bake';
  inputs: BuildStepInputs & {'github-token': string};
  /** Secret values besides the API key and `github-token` (e.g. bake's git auth token), masked in the log. */
  secrets?: string[];
  /** The local work after `docker buildx version`, before anything is assigned (see RemoteBuildOpts.prepare). */
  prepare: (tools: BuildStepTools, buildxVersion: string) => Promise<P>;
  /** The build on a ready builder (see RemoteBuildOpts.build). */
  build: (tools: BuildStepTools, prepared: P, target: BuildTarget, ctx: BuildContext) => Promise<R>;
}

/**
 * The main step of a build action (build-push, bake): masks the secrets, makes the tools and the private
 * folder (saved in state for post), and runs the build through runRemoteBuild; the folder and the secret
 * files in it go when main ends.
 */
export async function runBuildStep<P, R>(deps: StepDeps, opts: BuildStepOpts<P, R>): Promise<R> {
  const {io} = deps;
  for (const secret of [opts.inputs.credentials?.token, opts.inputs['github-token'], ...(opts.secrets ?? [])]) {
    if (secret) io.logger.setSecret(secret);
  }
  // buildx-version: installed before anything is assigned, then every docker call of the step runs it.
  const {env} = await setUpStepBuildx({
    request: opts.inputs['buildx-version'],
    io,
    ...(deps.signal ? {signal: deps.signal} : {}),
    ...(deps.loadToolCache ? {loadToolCache: deps.loadToolCache} : {})
  });
  const exec = execWithEnv(deps.exec ?? new NodeExec({logger: io.logger}), env);
  const docker = deps.docker ?? 'docker';
  const buildx = stepBuildx({...deps, exec, docker}, env);
  const summary = buildSummaryEnabled(io);
  const files = BuildFiles.create(io.env['RUNNER_TEMP'], `${opts.action}-`);
  io.state.save(BuildStepState.TmpDir, files.dir);
  const tools: BuildStepTools = {
    github: new GitHubContext(io.env),
    exec,
    docker,
    buildx,
    files,
    clock: deps.clock ?? systemClock,
    summary
  };
  try {
    return await runRemoteBuild({
      ...buildStepSetup(deps, opts.inputs, {action: opts.action, buildx, exec, docker, summary}),
      prepare: version => opts.prepare(tools, version),
      build: (prepared, target, ctx) => opts.build(tools, prepared, target, ctx)
    });
  } finally {
    files.remove();
  }
}

/** Whether every node of the target runs a BuildKit that takes attestations (false when none reports one). */
export function targetSupportsAttestations(target: BuildTarget): boolean {
  return target.inspect.nodes.length > 0 && buildkitSupportsAttestations(target.inspect.nodes, target.inspect.driver);
}

export interface BuildCommandOpts {
  /** Title of the build's log group, e.g. `Building on builder "x"`. */
  title: string;
  /** `docker buildx` arguments (without `buildx`); only paths, never secret values. */
  args: string[];
  cwd?: string;
  /** Extra environment (BUILDX_METADATA_WARNINGS=true is always set). */
  env?: Record<string, string>;
  signal?: AbortSignal;
}

/** Runs `docker buildx …` in its own log group; returns docker's result and how long it took. */
export async function runBuildCommand(
  tools: BuildStepTools,
  io: Pick<ActionIO, 'logger'>,
  opts: BuildCommandOpts
): Promise<{res: ExecResult; buildMs: number}> {
  const started = tools.clock.now();
  const res = await io.logger.group(opts.title, () => {
    io.logger.info(`[command]${tools.docker} buildx ${opts.args.join(' ')}`);
    return tools.exec.run(tools.docker, ['buildx', ...opts.args], {
      env: {BUILDX_METADATA_WARNINGS: 'true', ...opts.env},
      logged: true,
      ...(opts.cwd !== undefined ? {cwd: opts.cwd} : {}),
      ...(opts.signal ? {signal: opts.signal} : {})
    });
  });
  return {res, buildMs: tools.clock.now() - started};
}
