import net, {type AddressInfo} from 'node:net';
import type {Duplex} from 'node:stream';
import {afterEach, describe, expect, test} from '@jest/globals';
import {proxyFor} from '../../src/net/proxy-env.js';
import {ProxyError} from '../../src/net/proxy-error.js';
import {openTunnel} from '../../src/net/proxy-tunnel.js';
import {TransportError} from '../../src/net/transport-error.js';
import {BUILDER_HOST, cleanups, closedPort, runCleanups, startProxy} from './net-helpers.js';
import {failure} from '../fakes/failure.js';

afterEach(runCleanups);

/** A TCP server that answers every chunk with "echo:<chunk>". */
async function startEcho(): Promise<number> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer(s => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('data', d => s.write(`echo:${d.toString()}`));
  });
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>(resolve => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      })
  );
  return (server.address() as AddressInfo).port;
}

function roundTrip(stream: Duplex, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    stream.once('data', (d: Buffer) => resolve(d.toString()));
    stream.once('error', reject);
    stream.write(text);
  });
}

const choice = (value: string, variable = 'HTTPS_PROXY') => {
  const c = proxyFor(`https://${BUILDER_HOST}`, {[variable]: value});
  if (!c) throw new Error('no proxy chosen');
  return c;
};

describe('openTunnel', () => {
  test('tunnels bytes both ways to a name only the proxy resolves', async () => {
    const port = await startEcho();
    const proxy = await startProxy();
    const stream = await openTunnel({proxy: choice(proxy.url), host: BUILDER_HOST, port});
    cleanups.push(() => void stream.destroy());
    expect(await roundTrip(stream, 'ping')).toBe('echo:ping');
    expect(proxy.log()).toEqual([{method: 'CONNECT', target: `${BUILDER_HOST}:${port}`, status: 200}]);
  });

  test('sends the URL credentials as Proxy-Authorization Basic', async () => {
    const port = await startEcho();
    const proxy = await startProxy({auth: {username: 'jo', password: 'p@ss:word'}});
    const stream = await openTunnel({proxy: choice(proxy.urlWith('jo', 'p@ss:word')), host: BUILDER_HOST, port});
    cleanups.push(() => void stream.destroy());
    expect(await roundTrip(stream, 'x')).toBe('echo:x');
    expect(proxy.log()).toEqual([{method: 'CONNECT', target: `${BUILDER_HOST}:${port}`, status: 200, user: 'jo'}]);
  });

  test('407 without credentials says the variable has none', async () => {
    const proxy = await startProxy({auth: {username: 'jo', password: 'pw'}});
    const e = await failure(openTunnel({proxy: choice(proxy.url), host: BUILDER_HOST, port: 1234}), TransportError);
    expect(e).toBeInstanceOf(ProxyError);
    expect(e).toMatchObject({code: 'EPROXYAUTH', notSent: true, failure: 'refused', status: 407});
    expect(e.message).toBe(
      `the proxy ${proxy.url} refused the tunnel to ${BUILDER_HOST}:1234 (HTTP 407 Proxy Authentication Required): ` +
        'HTTPS_PROXY has no credentials: give them as http://user:password@host:port'
    );
  });

  test('407 with wrong credentials names the variable, never the password', async () => {
    const proxy = await startProxy({auth: {username: 'jo', password: 'pw'}});
    const e = await failure(
      openTunnel({proxy: choice(proxy.urlWith('jo', 'wrong-s3cret'), 'https_proxy'), host: BUILDER_HOST, port: 1}),
      TransportError
    );
    expect(e.message).toBe(
      `the proxy ${proxy.url} refused the tunnel to ${BUILDER_HOST}:1 (HTTP 407 Proxy Authentication Required): ` +
        "check https_proxy's credentials"
    );
    expect(JSON.stringify({...e, message: e.message})).not.toContain('wrong-s3cret');
  });

  test('403 says the proxy does not allow the target', async () => {
    const proxy = await startProxy({mode: 'refuse'});
    const e = await failure(openTunnel({proxy: choice(proxy.url), host: BUILDER_HOST, port: 443}), TransportError);
    expect(e).toMatchObject({code: 'EPROXYFORBIDDEN', notSent: true, status: 403});
    expect(e.message).toBe(
      `the proxy ${proxy.url} refused the tunnel to ${BUILDER_HOST}:443 (HTTP 403 Forbidden): ask its administrator ` +
        `to allow ${BUILDER_HOST}:443, or if ${BUILDER_HOST} is reachable without the proxy, add it to NO_PROXY`
    );
  });

  test('502 when the proxy cannot reach the target', async () => {
    const proxy = await startProxy();
    const e = await failure(
      openTunnel({proxy: choice(proxy.url), host: 'unknown.remote-builder.test', port: 443}),
      TransportError
    );
    expect(e).toMatchObject({code: 'EPROXYTUNNEL', notSent: true, status: 502});
    expect(e.message).toMatch(
      /^the proxy http:\/\/127\.0\.0\.1:\d+ failed to open the tunnel to unknown\.remote-builder\.test:443 \(HTTP 502 Bad Gateway\): the proxy cannot reach/
    );
  });

  test('a proxy that is down: cannot reach it, check the variable', async () => {
    const port = await closedPort();
    const e = await failure(
      openTunnel({proxy: choice(`http://127.0.0.1:${port}`), host: BUILDER_HOST, port: 443}),
      TransportError
    );
    expect(e).toMatchObject({code: 'ECONNREFUSED', notSent: true, failure: 'unreachable'});
    expect(e.message).toBe(`cannot reach the proxy http://127.0.0.1:${port} (ECONNREFUSED): check HTTPS_PROXY`);
  });

  test('a proxy that hangs up during the CONNECT', async () => {
    const proxy = await startProxy({mode: 'reset'});
    const e = await failure(openTunnel({proxy: choice(proxy.url), host: BUILDER_HOST, port: 443}), TransportError);
    expect(e).toMatchObject({code: 'ECONNRESET', notSent: true, failure: 'broken'});
    expect(e.message).toBe(
      `the proxy ${proxy.url} closed the connection while opening the tunnel to ${BUILDER_HOST}:443 (ECONNRESET): check HTTPS_PROXY`
    );
  });

  test('aborting a CONNECT the proxy does not answer: EABORTED, and the proxy connection is closed', async () => {
    const proxy = await startProxy({mode: 'stall'});
    const controller = new AbortController();
    const opening = openTunnel({proxy: choice(proxy.url), host: BUILDER_HOST, port: 443, signal: controller.signal});
    await until(() => proxy.log().length === 1);
    controller.abort();
    const e = await failure(opening, TransportError);
    expect(e).toMatchObject({code: 'EABORTED', notSent: true});
    await until(() => proxy.openConnections() === 0);
  });

  test('an already aborted signal opens nothing', async () => {
    const proxy = await startProxy();
    const e = await failure(
      openTunnel({proxy: choice(proxy.url), host: BUILDER_HOST, port: 443, signal: AbortSignal.abort()}),
      TransportError
    );
    expect(e.code).toBe('EABORTED');
    expect(proxy.log()).toEqual([]);
  });
});

/** Waits until `cond` holds, however long that takes: each test arranges what makes it hold. */
async function until(cond: () => boolean): Promise<void> {
  while (!cond()) await new Promise(r => setTimeout(r, 5));
}
