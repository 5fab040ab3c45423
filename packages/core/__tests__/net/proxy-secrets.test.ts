import {expect, test} from '@jest/globals';
import {proxySecrets} from '../../src/net/proxy-secrets.js';

const basic = (s: string) => Buffer.from(s).toString('base64');

// prettier-ignore
test.each<[string, Record<string, string>, string[]]>([
  ['no proxy', {}, []],
  ['a proxy without credentials', {HTTPS_PROXY: 'http://proxy.corp:3128'}, []],
  ['a user without password', {HTTPS_PROXY: 'http://jo@proxy.corp:3128'}, []],
  ['a password', {https_proxy: 'http://jo:s3cret@proxy.corp:3128'}, ['s3cret', basic('jo:s3cret')]],
  ['percent-encoded: as written and decoded', {HTTP_PROXY: 'http://jo:p%40ss@proxy.corp'}, ['p%40ss', 'p@ss', basic('jo:p@ss')]],
  ['no scheme', {http_proxy: 'jo:pw1@proxy.corp:3128'}, ['pw1', basic('jo:pw1')]],
  ['unparsable as a URL', {HTTPS_PROXY: 'http://jo:pa ss/x@proxy corp'}, ['pa ss/x', basic('jo:pa ss/x')]],
  ['every variable', {https_proxy: 'http://a:one@p', HTTPS_PROXY: 'http://a:two@p', http_proxy: 'http://a:one@p'}, ['one', basic('a:one'), 'two', basic('a:two')]]
])('%s', (_name, env, secrets) => {
  expect(proxySecrets(env)).toEqual(secrets);
});
