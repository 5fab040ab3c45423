import {describe, expect, test} from '@jest/globals';
import {InputError} from '../src/errors.js';
import {Env, resolveBuildxReleasesUrl} from '../src/inputs.js';

const env = (url: string): NodeJS.ProcessEnv => ({[Env.BuildxReleasesUrl]: url});

describe('resolveBuildxReleasesUrl (REMOTE_BUILDER_BUILDX_RELEASES_URL)', () => {
  test('unset or blank: undefined, so GitHub is used', () => {
    expect(resolveBuildxReleasesUrl({})).toBeUndefined();
    expect(resolveBuildxReleasesUrl(env('  '))).toBeUndefined();
  });

  test('an https mirror or a loopback http server, without the trailing slash', () => {
    expect(resolveBuildxReleasesUrl(env('https://mirror.example.com/docker/buildx/'))).toBe(
      'https://mirror.example.com/docker/buildx'
    );
    expect(resolveBuildxReleasesUrl(env(' http://127.0.0.1:8080/docker/buildx '))).toBe(
      'http://127.0.0.1:8080/docker/buildx'
    );
    expect(resolveBuildxReleasesUrl(env('http://[::1]:9/b'))).toBe('http://[::1]:9/b');
  });

  test.each([
    ['plain http to another host', 'http://mirror.example.com/docker/buildx'],
    ['not a URL', 'mirror.example.com'],
    ['another scheme', 'ftp://mirror.example.com/buildx'],
    ['credentials', 'https://user:pw@mirror.example.com/buildx'],
    ['a query', 'https://mirror.example.com/buildx?x=1']
  ])('refuses %s, naming the variable and the fix', (_what, url) => {
    let error: unknown;
    try {
      resolveBuildxReleasesUrl(env(url));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InputError);
    expect((error as Error).message).toContain(Env.BuildxReleasesUrl);
    expect((error as Error).message).toMatch(/use the https URL of a docker\/buildx mirror/);
    // Credentials are never echoed back.
    if (url.includes('pw@')) expect((error as Error).message).not.toContain('pw');
  });
});
