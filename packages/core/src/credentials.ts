import {InputError} from './errors.js';
import {Env} from './inputs.js';

export interface Credentials {
  token: string;
  source: 'input' | 'env' | 'runner-token';
}

/**
 * The bearer token: the `api-key` input, else REMOTE_BUILDER_API_KEY, else (on the service's own
 * runners) REMOTE_BUILDER_RUNNER_TOKEN.
 */
export function resolveCredentials(inputValue: string, env: NodeJS.ProcessEnv, input = 'api-key'): Credentials {
  const fromInput = inputValue.trim();
  if (fromInput !== '') return {token: checkToken(fromInput, input), source: 'input'};
  const fromEnv = (env[Env.ApiKey] ?? '').trim();
  if (fromEnv !== '') return {token: checkToken(fromEnv, Env.ApiKey), source: 'env'};
  const runner = (env[Env.RunnerToken] ?? '').trim();
  if (runner !== '') return {token: checkToken(runner, Env.RunnerToken), source: 'runner-token'};
  throw new InputError(
    input,
    `is required outside the service's own runners: pass a secret, e.g. "${input}: \${{ secrets.REMOTE_BUILDER_API_KEY }}", or set ${Env.ApiKey}`
  );
}

/**
 * A bearer token may hold only visible ASCII (RFC 6750 b64token is a subset): anything else is a copy-paste
 * accident (a zero-width space, a non-breaking space, a newline) that Node would refuse to send as a header,
 * or the service would never match. Named by kind and position, never by value.
 */
function checkToken(token: string, input: string): string {
  const chars = [...token];
  const at = chars.findIndex(c => {
    const code = c.codePointAt(0) ?? 0;
    return code < 0x21 || code > 0x7e;
  });
  if (at < 0) return token;
  throw new InputError(
    input,
    `contains ${describeChar(chars[at] as string)} at character ${at + 1} of ${chars.length}: an API key is visible ASCII only; copy it again from the web UI (and check the secret has no stray characters)`
  );
}

/** How a character that does not belong in a token is named in messages, e.g. "a zero-width space (U+200B)". */
export function describeChar(c: string): string {
  const code = c.codePointAt(0) ?? 0;
  const hex = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  const names: Record<number, string> = {
    0x09: 'a tab',
    0x0a: 'a newline',
    0x0d: 'a carriage return',
    0x20: 'a space',
    0xa0: 'a non-breaking space',
    0x200b: 'a zero-width space',
    0x200c: 'a zero-width non-joiner',
    0x200d: 'a zero-width joiner',
    0x2060: 'a word joiner',
    0xfeff: 'a byte-order mark'
  };
  const name = names[code] ?? (code < 0x20 || code === 0x7f ? 'a control character' : 'a non-ASCII character');
  return `${name} (${hex})`;
}
