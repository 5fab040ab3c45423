import {describe, expect, test} from '@jest/globals';
import {InputError} from '../src/errors.js';
import {
  Env,
  MAX_TIMEOUT_MS,
  parseBooleanInput,
  parseProfileNames,
  parseTimeoutMs,
  resolveApiUrl,
  resolveDetails404GraceMs
} from '../src/inputs.js';
import {resolveCredentials} from '../src/credentials.js';
import {isLoopback} from '../src/loopback.js';
import {resolveTeardownTimeoutMs} from '../src/lifecycle/teardown-limits.js';

/** Runs fn, expecting an InputError; returns it. */
function inputError(fn: () => unknown): InputError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(InputError);
    return e as InputError;
  }
  throw new Error('expected an InputError, got none');
}

test('the environment variables have their documented names', () => {
  expect([Env.ApiKey, Env.ApiUrl, Env.RunnerToken]).toEqual([
    'REMOTE_BUILDER_API_KEY',
    'REMOTE_BUILDER_API_URL',
    'REMOTE_BUILDER_RUNNER_TOKEN'
  ]);
  expect(MAX_TIMEOUT_MS).toBe(21_600_000);
});

describe('parseProfileNames', () => {
  // prettier-ignore
  test.each<[number, string, string[]]>([
    [1, 'amd', ['amd']],
    [2, '  amd  ', ['amd']],
    [3, 'amd,arm', ['amd', 'arm']],
    [4, 'amd, arm , multi', ['amd', 'arm', 'multi']],
    [5, 'amd\narm\n', ['amd', 'arm']],
    [6, 'amd\r\narm', ['amd', 'arm']],
    [7, 'amd,\n,arm', ['amd', 'arm']],
    [8, 'my profile', ['my profile']],
    [9, 'x'.repeat(200), ['x'.repeat(200)]]
  ])('[%d] parses %o as %o', (_n, raw, expected) => {
    expect(parseProfileNames(raw)).toEqual(expected);
  });

  // prettier-ignore
  test.each<[number, string, string]>([
    [1, '', 'Input "profile-name": is required: set it to the name of a builder profile from the web UI (or a comma-separated list to try in order)'],
    [2, ' , \n ,', 'Input "profile-name": is required: set it to the name of a builder profile from the web UI (or a comma-separated list to try in order)'],
    [3, 'a\tb', 'Input "profile-name": "a\tb" is not a profile name: use the name shown for the builder profile in the web UI'],
    [4, 'ok,bad\u0000x', 'Input "profile-name": "bad\u0000x" is not a profile name: use the name shown for the builder profile in the web UI'],
    [5, 'y'.repeat(201), `Input "profile-name": "${'y'.repeat(40)}" is not a profile name: use the name shown for the builder profile in the web UI`],
    [6, 'amd,arm,amd', 'Input "profile-name": lists a profile twice: amd, arm, amd'],
    [7, 'amd\n amd', 'Input "profile-name": lists a profile twice: amd, amd']
  ])('[%d] rejects %o', (_n, raw, message) => {
    const e = inputError(() => parseProfileNames(raw));
    expect(e.input).toBe('profile-name');
    expect(e.message).toBe(message);
  });

  test('errors name the input given', () => {
    expect(inputError(() => parseProfileNames('', 'profiles')).message).toMatch(/^Input "profiles": is required/);
  });
});

describe('parseTimeoutMs', () => {
  // prettier-ignore
  test.each<[number, string, number]>([
    [1, '', 300000],
    [2, '   ', 300000],
    [3, '1', 1],
    [4, '60000', 60000],
    [5, ' 120000 ', 120000],
    [6, '000500', 500],
    [7, String(MAX_TIMEOUT_MS), MAX_TIMEOUT_MS]
  ])('[%d] parses %o as %d', (_n, raw, expected) => {
    expect(parseTimeoutMs(raw, 300000)).toBe(expected);
  });

  // prettier-ignore
  test.each<[number, string, string]>([
    [1, 'abc', 'Input "timeout": "abc" is not a number of milliseconds: use a whole number such as 300000'],
    [2, '5m', 'Input "timeout": "5m" is not a number of milliseconds: use a whole number such as 300000'],
    [3, '-5', 'Input "timeout": "-5" is not a number of milliseconds: use a whole number such as 300000'],
    [4, '1.5', 'Input "timeout": "1.5" is not a number of milliseconds: use a whole number such as 300000'],
    [5, '1e6', 'Input "timeout": "1e6" is not a number of milliseconds: use a whole number such as 300000'],
    [6, '0x10', 'Input "timeout": "0x10" is not a number of milliseconds: use a whole number such as 300000'],
    [7, '0', 'Input "timeout": must be greater than 0 milliseconds (default 300000)'],
    [8, '000', 'Input "timeout": must be greater than 0 milliseconds (default 300000)'],
    [9, String(MAX_TIMEOUT_MS + 1), 'Input "timeout": 21600001 ms is longer than a job can run (21600000 ms = 6 h): it is milliseconds, e.g. 300000 for 5 minutes'],
    [10, '99999999999999999999999', 'Input "timeout": 1e+23 ms is longer than a job can run (21600000 ms = 6 h): it is milliseconds, e.g. 300000 for 5 minutes']
  ])('[%d] rejects %o', (_n, raw, message) => {
    const e = inputError(() => parseTimeoutMs(raw, 300000));
    expect(e.input).toBe('timeout');
    expect(e.message).toBe(message);
  });

  test('errors name the input given', () => {
    const e = inputError(() => parseTimeoutMs('x', 600000, 'readiness-timeout'));
    expect(e.input).toBe('readiness-timeout');
    expect(e.message).toBe(
      'Input "readiness-timeout": "x" is not a number of milliseconds: use a whole number such as 600000'
    );
  });
});

describe('resolveApiUrl', () => {
  // prettier-ignore
  test.each<[number, string, NodeJS.ProcessEnv, string]>([
    [1, 'https://api.example.com', {}, 'https://api.example.com'],
    [2, 'https://api.example.com/', {}, 'https://api.example.com'],
    [3, 'https://api.example.com/base//', {}, 'https://api.example.com/base'],
    [4, '  https://api.example.com:8443/x  ', {}, 'https://api.example.com:8443/x'],
    [5, 'HTTPS://API.Example.COM', {}, 'https://api.example.com'],
    [6, 'http://127.0.0.1:8080', {}, 'http://127.0.0.1:8080'],
    [7, 'http://127.9.9.9/', {}, 'http://127.9.9.9'],
    [8, 'http://localhost:3000/', {}, 'http://localhost:3000'],
    [9, 'https://emulator.localhost:3000', {}, 'https://emulator.localhost:3000'],
    [10, 'http://[::1]:4000', {}, 'http://[::1]:4000'],
    [11, '', {REMOTE_BUILDER_API_URL: 'https://env.example.com/'}, 'https://env.example.com'],
    [12, '   ', {REMOTE_BUILDER_API_URL: ' http://127.0.0.1:9 '}, 'http://127.0.0.1:9'],
    [13, 'https://input.example.com', {REMOTE_BUILDER_API_URL: 'https://env.example.com'}, 'https://input.example.com']
  ])('[%d] resolves %o (env %o) to %o', (_n, input, env, expected) => {
    expect(resolveApiUrl(input, env)).toBe(expected);
  });

  // prettier-ignore
  test.each<[number, string, NodeJS.ProcessEnv, string]>([
    [1, '', {}, 'Input "api-url": is required: set the api-url input or the REMOTE_BUILDER_API_URL environment variable to the service\'s base URL'],
    [2, '', {REMOTE_BUILDER_API_URL: '  '}, 'Input "api-url": is required: set the api-url input or the REMOTE_BUILDER_API_URL environment variable to the service\'s base URL'],
    [3, 'api.example.com', {}, 'Input "api-url": "api.example.com" is not a URL: use the service\'s base URL, e.g. https://api.example.com'],
    [4, 'https://', {}, 'Input "api-url": "https://" is not a URL: use the service\'s base URL, e.g. https://api.example.com'],
    [5, 'ftp://api.example.com', {}, 'Input "api-url": "ftp://api.example.com" must start with https://'],
    [6, 'http://api.example.com', {}, 'Input "api-url": "http://api.example.com" uses plain http to a non-loopback host, which would send the API key unencrypted: use https://'],
    [7, 'http://0.0.0.0:8080', {}, 'Input "api-url": "http://0.0.0.0:8080" uses plain http to a non-loopback host, which would send the API key unencrypted: use https://'],
    [8, 'http://localhost.evil.com', {}, 'Input "api-url": "http://localhost.evil.com" uses plain http to a non-loopback host, which would send the API key unencrypted: use https://'],
    [9, 'http://10.0.0.1', {}, 'Input "api-url": "http://10.0.0.1" uses plain http to a non-loopback host, which would send the API key unencrypted: use https://'],
    [10, 'https://user:s3cret@api.example.com', {}, 'Input "api-url": must not contain credentials: pass the key as api-key'],
    [11, 'http://user:s3cret@127.0.0.1', {}, 'Input "api-url": must not contain credentials: pass the key as api-key'],
    [12, 'https://tok3n@api.example.com', {}, 'Input "api-url": must not contain credentials: pass the key as api-key'],
    [13, 'https://api.example.com/?key=1', {}, 'Input "api-url": "https://api.example.com/?key=1" must not have a query or fragment'],
    [14, 'https://api.example.com/#x', {}, 'Input "api-url": "https://api.example.com/#x" must not have a query or fragment'],
    [15, '', {REMOTE_BUILDER_API_URL: 'http://api.example.com'}, 'Input "api-url": "http://api.example.com" uses plain http to a non-loopback host, which would send the API key unencrypted: use https://'],
    [16, 'http://emulator.localhost:3000', {}, 'Input "api-url": "http://emulator.localhost:3000" uses plain http to a non-loopback host, which would send the API key unencrypted: use https://'],
    [17, 'https://user:s3/cret@api.example.com', {}, 'Input "api-url": "https://***@api.example.com" is not a URL: use the service\'s base URL, e.g. https://api.example.com'],
    [18, 'user:s3cret@api.example.com', {}, 'Input "api-url": "***@api.example.com" must start with https://']
  ])('[%d] rejects %o (env %o)', (_n, input, env, message) => {
    const e = inputError(() => resolveApiUrl(input, env));
    expect(e.input).toBe('api-url');
    expect(e.message).toBe(message);
  });

  // prettier-ignore
  test.each<[number, string]>([
    [1, 'https://user:s3cret@api.example.com'],
    [2, 'http://user:s3cret@api.example.com'],
    [3, 'ftp://user:s3cret@api.example.com'],
    [4, 'https://user:s3cret@api.example.com/?q=1'],
    [5, 'https://user:s3cret@api example.com'],
    [6, 'https://user:s3cret/x@api.example.com'],
    [7, 'https://user:s3cret#@api.example.com'],
    [8, 'user:s3cret@api.example.com'],
    [9, 'https://user:s3cret?@api.example.com'],
    [10, 'http://user:s3cret@@api.example.com']
  ])('[%d] never echoes credentials in the URL back into the error (%o)', (_n, input) => {
    const e = inputError(() => resolveApiUrl(input, {}));
    expect(e.message).not.toContain('s3cret');
  });
});

describe('isLoopback', () => {
  // prettier-ignore
  test.each<[number, string, boolean]>([
    [1, 'localhost', true],
    [2, 'LOCALHOST', true],
    [3, 'a.localhost', false],
    [4, '127.0.0.1', true],
    [5, '127.255.255.254', true],
    [6, '::1', true],
    [7, '[::1]', true],
    [8, '0:0:0:0:0:0:0:1', true],
    [9, '128.0.0.1', false],
    [10, '0.0.0.0', false],
    [11, '::', false],
    [12, 'localhost.example.com', false],
    [13, '127.0.0.1.nip.io', false],
    [14, 'example.com', false]
  ])('[%d] %o → %s', (_n, host, expected) => {
    expect(isLoopback(host)).toBe(expected);
  });
});

describe('resolveCredentials', () => {
  const all = {REMOTE_BUILDER_API_KEY: 'env-key', REMOTE_BUILDER_RUNNER_TOKEN: 'runner-token'};
  // prettier-ignore
  test.each<[number, string, NodeJS.ProcessEnv, {token: string; source: string}]>([
    [1, 'input-key', all, {token: 'input-key', source: 'input'}],
    [2, '  input-key \n', all, {token: 'input-key', source: 'input'}],
    [3, '', all, {token: 'env-key', source: 'env'}],
    [4, '   ', {REMOTE_BUILDER_API_KEY: ' env-key '}, {token: 'env-key', source: 'env'}],
    [5, '', {REMOTE_BUILDER_RUNNER_TOKEN: 'runner-token'}, {token: 'runner-token', source: 'runner-token'}],
    [6, '', {REMOTE_BUILDER_API_KEY: '  ', REMOTE_BUILDER_RUNNER_TOKEN: 'runner-token'}, {token: 'runner-token', source: 'runner-token'}],
    [7, 'input-key', {}, {token: 'input-key', source: 'input'}]
  ])('[%d] input %o with env %o → %o', (_n, input, env, expected) => {
    expect(resolveCredentials(input, env)).toEqual(expected);
  });

  test('missing everywhere → an error naming the input and the variable', () => {
    const e = inputError(() => resolveCredentials('', {REMOTE_BUILDER_API_KEY: '', REMOTE_BUILDER_RUNNER_TOKEN: ' '}));
    expect(e.input).toBe('api-key');
    expect(e.message).toBe(
      'Input "api-key": is required outside the service\'s own runners: pass a secret, e.g. "api-key: ${{ secrets.REMOTE_BUILDER_API_KEY }}", or set REMOTE_BUILDER_API_KEY'
    );
  });

  // prettier-ignore
  test.each<[number, string, NodeJS.ProcessEnv, string, string]>([
    [1, 'abc def', {}, 'api-key', 'a space (U+0020) at character 4 of 7'],
    [2, 'abc\tdef', {}, 'api-key', 'a tab (U+0009) at character 4 of 7'],
    [3, 'abc\u0007def', {}, 'api-key', 'a control character (U+0007) at character 4 of 7'],
    [4, '', {REMOTE_BUILDER_API_KEY: 'abc\ndef'}, 'REMOTE_BUILDER_API_KEY', 'a newline (U+000A) at character 4 of 7'],
    [5, '', {REMOTE_BUILDER_RUNNER_TOKEN: 'abc def'}, 'REMOTE_BUILDER_RUNNER_TOKEN', 'a space (U+0020) at character 4 of 7'],
    [6, 'abc\u200bdef', {}, 'api-key', 'a zero-width space (U+200B) at character 4 of 7'],
    [7, 'abc\ufeffdef', {}, 'api-key', 'a byte-order mark (U+FEFF) at character 4 of 7'],
    [8, 'abc\u00a0def', {}, 'api-key', 'a non-breaking space (U+00A0) at character 4 of 7'],
    [9, 'abcdéf', {}, 'api-key', 'a non-ASCII character (U+00E9) at character 5 of 6'],
    [10, 'abc\u2060def', {}, 'api-key', 'a word joiner (U+2060) at character 4 of 7'],
    [11, 'abc\u007fdef', {}, 'api-key', 'a control character (U+007F) at character 4 of 7'],
    [12, 'abc\r\ndef', {}, 'api-key', 'a carriage return (U+000D) at character 4 of 8']
  ])('[%d] a token with a character that is not visible ASCII (%o, %o) is refused, naming %o and the character, without echoing it', (_n, input, env, named, what) => {
    const e = inputError(() => resolveCredentials(input, env));
    expect(e.input).toBe(named);
    expect(e.message).toBe(`Input "${named}": contains ${what}: an API key is visible ASCII only; copy it again from the web UI (and check the secret has no stray characters)`);
    expect(e.message).not.toContain('abc');
  });

  test('every visible ASCII character is accepted', () => {
    const all = Array.from({length: 0x7e - 0x21 + 1}, (_, i) => String.fromCharCode(0x21 + i)).join('');
    expect(resolveCredentials(all, {})).toEqual({token: all, source: 'input'});
  });
});

describe('parseBooleanInput', () => {
  // prettier-ignore
  test.each<[number, string, boolean, boolean]>([
    [1, '', true, true],
    [2, '', false, false],
    [3, '  ', true, true],
    [4, 'true', false, true],
    [5, 'True', false, true],
    [6, 'TRUE', false, true],
    [7, ' true ', false, true],
    [8, 'false', true, false],
    [9, 'False', true, false],
    [10, 'FALSE', true, false]
  ])('[%d] %o (fallback %s) → %s', (_n, raw, fallback, expected) => {
    expect(parseBooleanInput(raw, fallback, 'setup-buildx')).toBe(expected);
  });

  // prettier-ignore
  test.each<[number, string]>([
    [1, 'yes'],
    [2, '1'],
    [3, 'tRue'],
    [4, 'on'],
    [5, 'false!']
  ])('[%d] rejects %o naming the input', (_n, raw) => {
    const e = inputError(() => parseBooleanInput(raw, true, 'setup-buildx'));
    expect(e.input).toBe('setup-buildx');
    expect(e.message).toBe(`Input "setup-buildx": "${raw}" is not a boolean: use true or false`);
  });
});

describe('time budgets from the environment', () => {
  test.each([
    [{}, undefined, 30000],
    [{}, 15000, 15000],
    [{REMOTE_BUILDER_TEARDOWN_TIMEOUT_MS: ' 2000 '}, 15000, 2000],
    [{REMOTE_BUILDER_TEARDOWN_TIMEOUT_MS: '2000'}, undefined, 2000]
  ])('teardown budget %j with fallback %s is %i ms', (env, fallback, ms) => {
    expect(resolveTeardownTimeoutMs(env, fallback)).toBe(ms);
  });

  test.each([
    [{}, 10000],
    [{REMOTE_BUILDER_DETAILS_404_GRACE_MS: '0'}, 0],
    [{REMOTE_BUILDER_DETAILS_404_GRACE_MS: '1500'}, 1500]
  ])('details 404 grace %j is %i ms', (env, ms) => {
    expect(resolveDetails404GraceMs(env)).toBe(ms);
  });

  test.each(['-1', '1.5', 'soon', '600001'])('a details 404 grace of %s names the variable and the range', raw => {
    const e = inputError(() => resolveDetails404GraceMs({REMOTE_BUILDER_DETAILS_404_GRACE_MS: raw}));
    expect(e.message).toMatch(/REMOTE_BUILDER_DETAILS_404_GRACE_MS.*from 0 to 600000/);
  });

  test('a teardown budget below 1 s names the variable', () => {
    const e = inputError(() => resolveTeardownTimeoutMs({REMOTE_BUILDER_TEARDOWN_TIMEOUT_MS: '999'}, 15000));
    expect(e.message).toMatch(
      /REMOTE_BUILDER_TEARDOWN_TIMEOUT_MS.*from 1000 to 600000, or unset it for the default 15000$/
    );
  });
});
