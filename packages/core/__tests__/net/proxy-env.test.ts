import {afterEach, describe, expect, test} from '@jest/globals';
// The reference implementation the official actions use; it only reads process.env, so each row is set there.
// eslint-disable-next-line no-restricted-imports
import {checkBypass, getProxyUrl} from '@actions/http-client/lib/proxy';
import {bypassesProxy, proxyFor, ProxyConfigError, type ProxyEnv} from '../../src/net/proxy-env.js';

const VARS = ['https_proxy', 'HTTPS_PROXY', 'http_proxy', 'HTTP_PROXY', 'no_proxy', 'NO_PROXY'] as const;
const saved = Object.fromEntries(VARS.map(v => [v, process.env[v]]));

afterEach(() => {
  for (const v of VARS) {
    if (saved[v] === undefined) delete process.env[v];
    else process.env[v] = saved[v];
  }
});

/** Runs `fn` with exactly `env`'s proxy variables in process.env. */
function withProcessEnv<T>(env: ProxyEnv, fn: () => T): T {
  for (const v of VARS) {
    if (env[v] === undefined) delete process.env[v];
    else process.env[v] = env[v];
  }
  return fn();
}

// Every case of @actions/http-client's own proxy tests (__tests__/proxy.test.ts), its loopback rule, and the
// precedence between the lower- and upper-case variables.
// prettier-ignore
const BYPASS: [string, ProxyEnv, boolean][] = [
  ['https://myserver', {no_proxy: 'myserver'}, true],
  ['https://myserver', {no_proxy: 'otherserver,myserver,anotherserver:8080'}, true],
  ['https://myserver', {no_proxy: 'otherserver, myserver ,anotherserver:8080'}, true],
  ['https://myserver:8080', {no_proxy: 'otherserver, myserver:8080 ,anotherserver'}, true],
  ['https://myserver:8080', {no_proxy: 'otherserver, myserver ,anotherserver'}, true],
  ['https://myserver', {no_proxy: 'otherserver, myserver:443 ,anotherserver'}, true],
  ['http://myserver', {no_proxy: 'otherserver, myserver:80 ,anotherserver'}, true],
  ['https://myserver:8443', {no_proxy: 'myserver:443'}, false],
  ['https://github.com', {no_proxy: 'otherserver, myserver ,anotherserver:8080'}, false],
  ['https://github.com', {no_proxy: ''}, false],
  ['https://github.com', {}, false],
  ['https://sub.myserver.com', {no_proxy: 'myserver.com'}, true],
  // A leading dot matches subdomains only, in 4.0.1's code (toolkit's test file of a later commit expects true).
  ['https://myserver.com', {no_proxy: '.myserver.com'}, false],
  ['https://a.b.myserver.com', {no_proxy: '.myserver.com'}, true],
  ['https://notmyserver.com', {no_proxy: 'myserver.com'}, false],
  ['https://myserver.com.evil.org', {no_proxy: 'myserver.com'}, false],
  ['https://anything.whatsoever.com', {no_proxy: '*'}, true],
  ['https://MyServer.Example', {no_proxy: 'myserver.example'}, true],
  ['https://api.example.com', {NO_PROXY: 'example.com'}, true],
  ['https://api.example.com', {no_proxy: 'other.org', NO_PROXY: 'example.com'}, false],
  ['https://api.example.com', {no_proxy: '', NO_PROXY: 'example.com'}, true],
  ['https://api.example.com', {no_proxy: ' , ,'}, false],
  ['https://localhost', {}, true],
  ['http://LOCALHOST:8080', {}, true],
  ['https://127.0.0.1:9443', {}, true],
  ['https://127.1.2.3', {}, true],
  ['https://127.example.com', {}, true],
  ['https://[::1]:8443', {}, true],
  ['https://[0:0:0:0:0:0:0:1]', {}, true],
  ['https://10.0.0.1', {no_proxy: '10.0.0.0/8'}, false],
  ['https://10.0.0.1', {no_proxy: '10.0.0.1'}, true],
  ['https://[fd00::1]:443', {no_proxy: '[fd00::1]'}, true]
];

// prettier-ignore
const SELECT: [string, ProxyEnv, string | undefined][] = [
  ['https://github.com', {}, undefined],
  ['https://github.com', {https_proxy: 'https://myproxysvr'}, 'https://myproxysvr/'],
  ['https://github.com', {HTTPS_PROXY: 'http://corp:3128'}, 'http://corp:3128/'],
  ['https://github.com', {https_proxy: 'http://lower:1', HTTPS_PROXY: 'http://upper:2'}, 'http://lower:1/'],
  ['https://github.com', {https_proxy: '', HTTPS_PROXY: 'http://upper:2'}, 'http://upper:2/'],
  ['https://github.com', {http_proxy: 'https://myproxysvr'}, undefined],
  ['http://github.com', {http_proxy: 'http://myproxysvr'}, 'http://myproxysvr/'],
  ['http://github.com', {HTTP_PROXY: 'http://up:8080'}, 'http://up:8080/'],
  ['http://github.com', {https_proxy: 'http://only-https:1'}, undefined],
  ['https://myserver', {https_proxy: 'https://myproxysvr', no_proxy: 'otherserver,myserver,anotherserver:8080'}, undefined],
  ['https://github.com', {https_proxy: 'https://myproxysvr', no_proxy: 'otherserver,myserver,anotherserver:8080'}, 'https://myproxysvr/'],
  ['http://myserver', {http_proxy: 'http://myproxysvr', no_proxy: 'otherserver,myserver,anotherserver:8080'}, undefined],
  ['https://127.0.0.1:8443', {https_proxy: 'http://corp:3128'}, undefined],
  ['https://localhost', {HTTPS_PROXY: 'http://corp:3128'}, undefined],
  ['https://api.example.com', {HTTPS_PROXY: 'http://127.0.0.1:3128'}, 'http://127.0.0.1:3128/'],
  ['https://api.example.com', {HTTPS_PROXY: 'http://user:p%40ss@corp:3128'}, 'http://user:p%40ss@corp:3128/']
];

describe('bypassesProxy', () => {
  test.each(BYPASS)('%#. %s with %j bypasses: %s', (url, env, want) => {
    expect(bypassesProxy(new URL(url), env)).toBe(want);
  });

  test.each(BYPASS)('%#. %s with %j: same verdict as @actions/http-client checkBypass', (url, env) => {
    const theirs = withProcessEnv(env, () => checkBypass(new URL(url)));
    expect(bypassesProxy(new URL(url), env)).toBe(theirs);
  });

  test('reads the injected env, not process.env', () => {
    process.env['no_proxy'] = '*';
    expect(bypassesProxy(new URL('https://api.example.com'), {})).toBe(false);
    expect(bypassesProxy(new URL('https://api.example.com'), {no_proxy: '*'})).toBe(true);
  });
});

describe('proxyFor', () => {
  test.each(SELECT)('%#. %s with %j uses %s', (url, env, want) => {
    expect(proxyFor(url, env)?.url.href).toBe(want);
  });

  test.each(SELECT)('%#. %s with %j: same proxy as @actions/http-client getProxyUrl', (url, env) => {
    const theirs = withProcessEnv(env, () => getProxyUrl(new URL(url)));
    expect(proxyFor(url, env)?.url.href).toBe(theirs?.href);
  });

  test('names the variable it used and keeps credentials out of the origin', () => {
    const choice = proxyFor('https://api.example.com', {https_proxy: 'http://jo:s3cr%3At@corp.example:3128'});
    expect(choice).toMatchObject({variable: 'https_proxy', origin: 'http://corp.example:3128'});
    // Percent-decoded as @actions/http-client's DecodedURL does: jo:s3cr:t.
    expect(choice?.authorization).toBe(`Basic ${Buffer.from('jo:s3cr:t').toString('base64')}`);
    expect(proxyFor('https://x.example', {HTTPS_PROXY: 'http://corp:3128'})).toMatchObject({
      variable: 'HTTPS_PROXY',
      origin: 'http://corp:3128'
    });
    expect(proxyFor('https://x.example', {HTTPS_PROXY: 'http://corp:3128'})?.authorization).toBeUndefined();
    expect(proxyFor('https://x.example', {HTTPS_PROXY: 'http://jo@corp:3128'})?.authorization).toBe(
      `Basic ${Buffer.from('jo:').toString('base64')}`
    );
  });

  test('a value without a scheme is an http proxy, like @actions/http-client for an address', () => {
    const env = {HTTPS_PROXY: '127.0.0.1:3128'};
    expect(proxyFor('https://api.example.com', env)?.url.href).toBe('http://127.0.0.1:3128/');
    expect(withProcessEnv(env, () => getProxyUrl(new URL('https://api.example.com')))?.href).toBe(
      'http://127.0.0.1:3128/'
    );
    // @actions/http-client reads "proxy.corp:" as a scheme here; we take it as a host, as curl does.
    expect(proxyFor('https://api.example.com', {HTTPS_PROXY: 'proxy.corp:3128'})?.origin).toBe(
      'http://proxy.corp:3128'
    );
  });

  test.each([
    ['socks5://corp:1080', /HTTPS_PROXY must be an http:\/\/ or https:\/\/ proxy URL, got socks5:\/\/corp:1080/],
    ['http://', /HTTPS_PROXY is not a URL/],
    ['http://jo:%E0%A4%A@corp:3128', /HTTPS_PROXY has badly percent-encoded credentials \(proxy http:\/\/corp:3128\)/]
  ])('%#. an unusable %j throws ProxyConfigError without its credentials', (value, message) => {
    let error: unknown;
    try {
      proxyFor('https://api.example.com', {HTTPS_PROXY: value});
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ProxyConfigError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain('%E0');
  });
});
