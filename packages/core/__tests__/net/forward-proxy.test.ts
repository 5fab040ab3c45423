// The test proxy itself (packages/emulator/src/testing/forward-proxy.ts), for what the other tests do not use:
// absolute-form requests, the way curl sends plain http through a proxy.
import http from 'node:http';
import {afterEach, expect, test} from '@jest/globals';
import {API_HOST, runCleanups, startProxy, startServer} from './net-helpers.js';

afterEach(runCleanups);

function viaProxy(
  proxyUrl: string,
  target: string,
  headers: Record<string, string> = {}
): Promise<{status: number; body: string}> {
  const proxy = new URL(proxyUrl);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {host: proxy.hostname, port: proxy.port, method: 'GET', path: target, headers, agent: false},
      res => {
        let body = '';
        res.setEncoding('utf8').on('data', (d: string) => (body += d));
        res.on('end', () => resolve({status: res.statusCode ?? 0, body}));
      }
    );
    req.on('error', reject);
    req.end();
  });
}

test('forwards an absolute-form request to a mapped name, without the proxy headers', async () => {
  const api = await startServer();
  const proxy = await startProxy({auth: {username: 'jo', password: 'pw'}});
  const target = `http://${API_HOST}:${api.port}/api/v1/builder-profiles`;
  const auth = `Basic ${Buffer.from('jo:pw').toString('base64')}`;
  expect(await viaProxy(proxy.url, target, {'Proxy-Authorization': auth})).toEqual({status: 200, body: '{"ok":true}'});
  expect(api.requests).toEqual([{method: 'GET', url: '/api/v1/builder-profiles', host: `${API_HOST}:${api.port}`}]);
  expect(proxy.log()).toEqual([{method: 'GET', target: `${API_HOST}:${api.port}`, status: 200, user: 'jo'}]);
});

test('absolute-form: 407 without credentials, 403 when refusing, 502 for a name it cannot resolve', async () => {
  const api = await startServer();
  const proxy = await startProxy({auth: {username: 'jo', password: 'pw'}});
  const auth = {'Proxy-Authorization': `Basic ${Buffer.from('jo:pw').toString('base64')}`};
  expect((await viaProxy(proxy.url, `http://${API_HOST}:${api.port}/`)).status).toBe(407);
  expect((await viaProxy(proxy.url, 'http://unknown.remote-builder.test/', auth)).status).toBe(502);
  proxy.setMode('refuse');
  expect((await viaProxy(proxy.url, `http://${API_HOST}:${api.port}/`, auth)).status).toBe(403);
  expect(api.requests).toEqual([]);
  expect(proxy.log().map(e => e.status)).toEqual([407, 502, 403]);
});
