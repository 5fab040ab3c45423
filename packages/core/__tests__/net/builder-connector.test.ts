import {connect as tlsConnect} from 'node:tls';
import {afterEach, describe, expect, test} from '@jest/globals';
import {builderConnector, builderRoute, tunnelConnector} from '../../src/net/builder-connector.js';
import type {ProxyEnv} from '../../src/net/proxy-env.js';
import {proxyFor} from '../../src/net/proxy-env.js';
import {apiTls, BUILDER_HOST, runCleanups, startProxy, startServer} from './net-helpers.js';

afterEach(runCleanups);

const PROXY = 'http://jo:s3cret@proxy.corp:3128';

// buildx's remote driver dials builders itself, so gRPC never applies HTTPS_PROXY: always direct.
// prettier-ignore
const ROUTES: [string, string, ProxyEnv, boolean][] = [
  ['no proxy variable', 'builder.example.com', {}, false],
  ['HTTPS_PROXY set', 'builder.example.com', {HTTPS_PROXY: PROXY}, true],
  ['https_proxy set', 'builder.example.com', {https_proxy: PROXY}, true],
  ['only HTTP_PROXY set (gRPC reads the https variables)', 'builder.example.com', {HTTP_PROXY: PROXY}, false],
  ['NO_PROXY names the builder', 'builder.example.com', {HTTPS_PROXY: PROXY, NO_PROXY: 'example.com'}, false],
  ['NO_PROXY names another host', 'builder.example.com', {HTTPS_PROXY: PROXY, NO_PROXY: 'other.org'}, true],
  ['a loopback builder', '127.0.0.1', {HTTPS_PROXY: PROXY}, false],
  ['an IPv6 builder', 'fd00::5', {HTTPS_PROXY: PROXY}, true],
  ['an unusable proxy variable', 'builder.example.com', {HTTPS_PROXY: 'socks5://proxy.corp:1080'}, false]
];

describe('builderRoute', () => {
  test.each(ROUTES)('%#. %s: direct, a note: %s', (_what, host, env, noted) => {
    const route = builderRoute({host, port: 8443, env});
    expect(route.connect).toBeUndefined();
    expect(builderConnector({host, port: 8443, env})).toBeUndefined();
    if (!noted) {
      expect(route.note).toBeUndefined();
      return;
    }
    const variable = env.https_proxy !== undefined ? 'https_proxy' : 'HTTPS_PROXY';
    const where = host.includes(':') ? `[${host}]:8443` : `${host}:8443`;
    expect(route.note).toBe(
      `${variable} is set, but buildx connects to remote builders directly (its remote driver has its own dialer, ` +
        `which gRPC does not send through a proxy): the runner must reach ${where} without it`
    );
    expect(route.note).not.toContain('s3cret');
  });

  test('reads process.env by default', () => {
    const saved = process.env.HTTPS_PROXY;
    process.env.HTTPS_PROXY = PROXY;
    try {
      expect(builderRoute({host: 'builder.example.com', port: 1}).note).toMatch(/^HTTPS_PROXY is set/);
    } finally {
      if (saved === undefined) delete process.env.HTTPS_PROXY;
      else process.env.HTTPS_PROXY = saved;
    }
  });
});

describe('tunnelConnector', () => {
  test('yields a stream a TLS handshake with the builder runs over, through the proxy', async () => {
    const material = await apiTls();
    const server = await startServer({tls: material});
    const proxy = await startProxy();
    const choice = proxyFor(`https://${BUILDER_HOST}`, {HTTPS_PROXY: proxy.url});
    if (!choice) throw new Error('no proxy chosen');
    const raw = await tunnelConnector({proxy: choice, host: BUILDER_HOST, port: server.port})();
    const socket = tlsConnect({socket: raw, servername: BUILDER_HOST, ca: material.caCert});
    await new Promise<void>((resolve, reject) => {
      socket.once('secureConnect', resolve);
      socket.once('error', reject);
    });
    expect(socket.authorized).toBe(true);
    socket.destroy();
    expect(proxy.tunnels()).toEqual([`${BUILDER_HOST}:${server.port}`]);
  });

  test('passes the abort signal on', async () => {
    const proxy = await startProxy({mode: 'stall'});
    const choice = proxyFor(`https://${BUILDER_HOST}`, {HTTPS_PROXY: proxy.url});
    if (!choice) throw new Error('no proxy chosen');
    await expect(
      tunnelConnector({proxy: choice, host: BUILDER_HOST, port: 1})(AbortSignal.abort())
    ).rejects.toMatchObject({code: 'EABORTED'});
    expect(proxy.log()).toEqual([]);
  });
});
