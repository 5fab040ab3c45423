import path from 'node:path';

/**
 * The environment the GitHub runner gives a JavaScript action step, after actions/runner `Handler`
 * (`AddInputsToEnvironment`, `AddPrependPathToEnvironment`) and `NodeScriptActionHandler`:
 * https://github.com/actions/runner/blob/main/src/Runner.Worker/Handlers/Handler.cs
 */

/** Context variables with plausible values for a push to main; the caller's env overrides any of them. */
export const RUNNER_DEFAULTS: Readonly<Record<string, string>> = {
  GITHUB_ACTIONS: 'true',
  CI: 'true',
  RUNNER_OS: 'Linux',
  RUNNER_ARCH: 'X64',
  RUNNER_NAME: 'remote-builder-harness',
  RUNNER_ENVIRONMENT: 'github-hosted',
  GITHUB_ACTION: '__remote-builder-actions',
  GITHUB_ACTOR: 'octocat',
  GITHUB_EVENT_NAME: 'push',
  GITHUB_JOB: 'build',
  GITHUB_REF: 'refs/heads/main',
  GITHUB_REF_NAME: 'main',
  GITHUB_REF_TYPE: 'branch',
  GITHUB_REPOSITORY: 'octo-org/octo-repo',
  GITHUB_REPOSITORY_OWNER: 'octo-org',
  GITHUB_RUN_ATTEMPT: '1',
  GITHUB_RUN_ID: '1',
  GITHUB_RUN_NUMBER: '1',
  GITHUB_SHA: 'ffac537e6cbbf934b08745a378932722df287a53',
  GITHUB_WORKFLOW: 'ci',
  GITHUB_SERVER_URL: 'https://github.com',
  GITHUB_API_URL: 'https://api.github.com',
  GITHUB_GRAPHQL_URL: 'https://api.github.com/graphql'
};

/** Parent variables a step sees when the caller's environment is not inherited. */
const CLEAN_BASE = ['PATH', 'HOME'] as const;

/** The directories of one job inside its work dir. */
export interface JobDirs {
  /** RUNNER_TEMP; the command files live in `_runner_file_commands/` under it, as on the runner. */
  runnerTemp: string;
  /** GITHUB_WORKSPACE, and the step's working directory. */
  workspace: string;
}

export function jobDirs(workDir: string): JobDirs {
  return {runnerTemp: path.join(workDir, 'runner-temp'), workspace: path.join(workDir, 'workspace')};
}

/** The variable that carries input `name`: spaces become '_', then upper case; dashes stay (`INPUT_PROFILE-NAME`). */
export function inputEnvName(name: string): string {
  return `INPUT_${name.replace(/ /g, '_').toUpperCase()}`;
}

export interface StepEnvOpts {
  dirs: JobDirs;
  /** GITHUB_OUTPUT, GITHUB_STATE, … → file paths. The harness owns these: nothing overrides them. */
  commandFiles: Record<string, string>;
  inputs?: Record<string, string>;
  env?: Record<string, string>;
  /** Start from the whole parent environment instead of only PATH and HOME. */
  inheritEnv?: boolean;
  state?: Record<string, string>;
  /** Directories added through GITHUB_PATH by earlier steps, oldest first; the newest ends up first in PATH. */
  prependPath?: string[];
  parentEnv?: NodeJS.ProcessEnv;
}

/**
 * Builds a step's environment. Later layers win: parent (PATH and HOME, or everything with inheritEnv),
 * runner variables, the caller's env, the GITHUB_PATH prefix, INPUT_*, STATE_*, the command file paths.
 */
export function buildStepEnv(opts: StepEnvOpts): Record<string, string> {
  const parent = opts.parentEnv ?? process.env;
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(parent)) {
    if (value !== undefined && (opts.inheritEnv || (CLEAN_BASE as readonly string[]).includes(name))) env[name] = value;
  }
  // The runner drops it; it may point at ICU data for another node (actions/runner#795).
  delete env.NODE_ICU_DATA;
  Object.assign(env, RUNNER_DEFAULTS, {RUNNER_TEMP: opts.dirs.runnerTemp, GITHUB_WORKSPACE: opts.dirs.workspace});
  Object.assign(env, opts.env);
  const prefix = prependPathValue(opts.prependPath ?? []);
  if (prefix !== '') env.PATH = env.PATH ? `${prefix}${path.delimiter}${env.PATH}` : prefix;
  for (const [name, value] of Object.entries(opts.inputs ?? {})) env[inputEnvName(name)] = value;
  for (const [name, value] of Object.entries(opts.state ?? {})) env[`STATE_${name}`] = value;
  return Object.assign(env, opts.commandFiles);
}

/** The runner keeps each directory once, at its latest position, and puts the newest first. */
export function prependPathValue(added: string[]): string {
  const ordered: string[] = [];
  for (const dir of added) {
    const at = ordered.indexOf(dir);
    if (at >= 0) ordered.splice(at, 1);
    ordered.push(dir);
  }
  return ordered.reverse().join(path.delimiter);
}
