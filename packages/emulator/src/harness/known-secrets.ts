/**
 * The values the harness knows are secret before a step prints anything, as the runner knows the job's
 * secrets: the inputs and variables that carry credentials. They are masked from the first line on.
 */

/** Inputs of our actions that carry a credential (`secrets`: build secrets, `id=value` lines). */
export const SECRET_INPUTS: readonly string[] = ['api-key', 'github-token', 'secrets'];

/** Variables the actions or the runner read a credential from. */
export const SECRET_ENV: readonly string[] = [
  'REMOTE_BUILDER_API_KEY',
  'REMOTE_BUILDER_RUNNER_TOKEN',
  'BUILDX_BAKE_GIT_AUTH_TOKEN',
  'GITHUB_TOKEN',
  'ACTIONS_RUNTIME_TOKEN',
  'ACTIONS_ID_TOKEN_REQUEST_TOKEN'
];

/** Other names that say "secret"; their values count when 4 characters or more (a `X_TOKEN=1` would mask every 1). */
const SECRET_NAME = /(^|[-_ ])(token|secrets?|password|passwd|api[-_]?key|private[-_]key|access[-_]key|credentials?)$/i;
const MIN_GUESSED_LENGTH = 4;

export interface KnownSecretsOpts {
  inputs?: Record<string, string>;
  env?: Record<string, string>;
}

/** The secret values among a step's inputs and environment (with each `id=value` line's value for `secrets`). */
export function knownSecrets(opts: KnownSecretsOpts): string[] {
  const found: string[] = [];
  const take = (name: string, value: string, listed: readonly string[]): void => {
    if (value.trim() === '') return;
    if (listed.includes(name) || (SECRET_NAME.test(name) && value.trim().length >= MIN_GUESSED_LENGTH)) {
      found.push(value);
      // `id=value` lines (build secrets): the value alone may be printed too.
      for (const line of value.split(/\r?\n/)) {
        const equals = line.indexOf('=');
        if (equals > 0 && line.slice(equals + 1).trim() !== '') found.push(line.slice(equals + 1));
      }
    }
  };
  for (const [name, value] of Object.entries(opts.inputs ?? {})) take(name.toLowerCase(), value, SECRET_INPUTS);
  for (const [name, value] of Object.entries(opts.env ?? {})) take(name.toUpperCase(), value, SECRET_ENV);
  return [...new Set(found)];
}
