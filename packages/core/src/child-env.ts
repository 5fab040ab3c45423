/**
 * The environment of a child that runs user code. docker and buildx run the build's files (a bake file reads
 * the environment, a Dockerfile gets build args from it) and never need the service's API key; every child
 * NodeExec starts gets this environment.
 */

/**
 * Variables that carry the API key (Env.ApiKey, Env.RunnerToken in inputs.ts; spelled out here so that exec.ts,
 * loaded first by early.ts, stays free of the input parsers).
 */
export enum KeyEnv {
  ApiKey = 'REMOTE_BUILDER_API_KEY',
  RunnerToken = 'REMOTE_BUILDER_RUNNER_TOKEN'
}

/** The runner's variable for an `api-key` input (`INPUT_API-KEY`; `INPUT_API_KEY` as a user may spell it). */
const KEY_INPUT = /^INPUT_API[-_]KEY$/i;

/** Whether `name` carries the API key. */
export function isKeyVariable(name: string): boolean {
  return KEY_INPUT.test(name) || Object.values<string>(KeyEnv).includes(name);
}

/**
 * `base` with `extra` over it, without the API key variables. Everything else stays: buildx needs the runner's
 * (ACTIONS_RUNTIME_TOKEN and ACTIONS_CACHE_URL for `type=gha` caches, DOCKER_CONFIG, proxies), and `secret-envs`
 * names variables of the user's.
 */
export function childEnv(base: NodeJS.ProcessEnv, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries({...base, ...extra})) {
    if (value !== undefined && !isKeyVariable(name)) env[name] = value;
  }
  return env;
}
