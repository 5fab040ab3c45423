// ReleaseHttp's failures below the release server's answers (those are the installer's tests): a connection cut
// mid-body, and a real forward proxy that fails, where each failure before the tunnel is up names the proxy
// and what to check (net/proxy-failure's wording, as for the API) and nothing reaches the release server.
import {afterEach, beforeEach, expect, test} from '@jest/globals';
import http from 'node:http';
import type {AddressInfo} from 'node:net';
import {BuildxInstallError} from '../../src/buildx-install/buildx-install-error.js';
import {ReleaseHttp, refusedRedirect, type ReleaseGet} from '../../src/buildx-install/release-http.js';
import {ProxyError} from '../../src/net/proxy-error.js';
import type {ForwardProxyOpts} from '../../../emulator/src/testing/forward-proxy.js';
import {FakeBuildxReleases} from '../../../emulator/src/testing/fake-buildx-releases.js';
import {FakeClock} from '../fakes/fake-clock.js';
import {failure} from '../fakes/failure.js';
import {cleanups, closedPort, runCleanups, startProxy} from '../net/net-helpers.js';

const HOST = 'releases.remote-builder.test';

let fake: FakeBuildxReleases;
let url: string;
let target: string;

beforeEach(async () => {
  fake = await FakeBuildxReleases.start();
  cleanups.push(() => fake.close());
  const {port} = new URL(fake.baseUrl);
  target = `${HOST}:${port}`;
  url = `http://${target}/docker/buildx/releases/download/v0.19.3/checksums.txt`;
});

afterEach(runCleanups);

const get = (signal?: AbortSignal): ReleaseGet => ({what: 'download checksums.txt', hint: () => 'the hint', signal});

/** A proxy that resolves HOST; its URL with `user:password` when given. */
async function proxyUrl(opts: ForwardProxyOpts, credentials?: [string, string]): Promise<string> {
  const proxy = await startProxy({...opts, hosts: {[HOST]: '127.0.0.1'}});
  return credentials ? proxy.urlWith(...credentials) : proxy.url;
}

test('a connection cut mid-body: ECONNRESET, said in words', async () => {
  // 16 of the 100 bytes announced, then the server closes the connection.
  const server = http.createServer((_req, res) => {
    res.writeHead(200, {'content-length': '100'});
    res.write(Buffer.alloc(16), () => res.socket?.destroy());
  });
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>(resolve => server.close(() => resolve())));
  const cut = `http://127.0.0.1:${(server.address() as AddressInfo).port}/checksums.txt`;
  const e = await failure(new ReleaseHttp({env: {}}).text(cut, get()), BuildxInstallError);
  expect(e).toMatchObject({failure: 'network', url: cut});
  expect(e.message).toBe(
    `Failed to download checksums.txt from ${cut}: ECONNRESET the connection closed before the answer was complete (the hint)`
  );
});

test.each([
  [
    '407 without credentials',
    {auth: {username: 'jo', password: 'pw'}},
    undefined,
    'EPROXYAUTH',
    (p: string) =>
      `the proxy ${p} refused the tunnel to ${target} (HTTP 407 Proxy Authentication Required): ` +
      'http_proxy has no credentials: give them as http://user:password@host:port'
  ],
  [
    '407 with wrong credentials',
    {auth: {username: 'jo', password: 'pw'}},
    ['jo', 'wrong-s3cret'] as [string, string],
    'EPROXYAUTH',
    (p: string) =>
      `the proxy ${p} refused the tunnel to ${target} (HTTP 407 Proxy Authentication Required): check http_proxy's credentials`
  ],
  [
    '403',
    {mode: 'refuse' as const},
    undefined,
    'EPROXYFORBIDDEN',
    (p: string) =>
      `the proxy ${p} refused the tunnel to ${target} (HTTP 403 Forbidden): ask its administrator to allow ${target}, ` +
      `or if ${HOST} is reachable without the proxy, add it to NO_PROXY`
  ],
  [
    'a hang-up',
    {mode: 'reset' as const},
    undefined,
    'ECONNRESET',
    (p: string) =>
      `the proxy ${p} closed the connection while opening the tunnel to ${target} (ECONNRESET): check http_proxy`
  ]
])(
  '%s: a network failure naming the proxy and the fix; nothing reaches the server',
  async (_w, opts, creds, code, why) => {
    const proxy = await proxyUrl(opts, creds);
    const e = await failure(new ReleaseHttp({env: {http_proxy: proxy}}).text(url, get()), BuildxInstallError);
    const origin = new URL(proxy).origin;
    expect(e).toMatchObject({failure: 'network', url});
    expect(e.message).toBe(`Failed to download checksums.txt from ${url}: ${code} ${why(origin)} (the hint)`);
    expect(e.cause).toBeInstanceOf(ProxyError);
    expect(e.cause).toMatchObject({code, notSent: true});
    expect(JSON.stringify({...e, message: e.message})).not.toContain('wrong-s3cret');
    expect(fake.requests).toEqual([]);
  }
);

test('a proxy that cannot reach the host: its 502 and where to look', async () => {
  const proxy = await startProxy();
  const e = await failure(new ReleaseHttp({env: {http_proxy: proxy.url}}).text(url, get()), BuildxInstallError);
  expect(e.message).toBe(
    `Failed to download checksums.txt from ${url}: EPROXYTUNNEL the proxy ${proxy.url} failed to open the tunnel ` +
      `to ${target} (HTTP 502 Bad Gateway): the proxy cannot reach ${target}; if ${HOST} is reachable without ` +
      'the proxy, add it to NO_PROXY (the hint)'
  );
});

test('a proxy that is down: cannot reach it, check the variable', async () => {
  const port = await closedPort();
  const e = await failure(
    new ReleaseHttp({env: {HTTP_PROXY: `http://127.0.0.1:${port}`}}).text(url, get()),
    BuildxInstallError
  );
  expect(e.message).toBe(
    `Failed to download checksums.txt from ${url}: ECONNREFUSED cannot reach the proxy http://127.0.0.1:${port} ` +
      '(ECONNREFUSED): check HTTP_PROXY (the hint)'
  );
});

test('a CONNECT the proxy never answers fails once the idle timeout passes on the clock; the CONNECT is dropped', async () => {
  const proxy = await startProxy({mode: 'stall'});
  const clock = new FakeClock();
  const pending = failure(
    new ReleaseHttp({env: {http_proxy: proxy.url}, clock, idleTimeoutMs: 500}).text(url, get()),
    BuildxInstallError
  );
  await until(() => proxy.log().length === 1);
  clock.advance(500);
  const e = await pending;
  expect(e.message).toBe(
    `Failed to download checksums.txt from ${url}: ETIMEDOUT the proxy ${proxy.url} did not open the tunnel to ` +
      `${target} within 500 ms: check http_proxy (the hint)`
  );
  await until(() => proxy.openConnections() === 0);
  expect(clock.pendingTimers).toBe(0);
});

test('cancelling while the proxy holds the CONNECT: "cancelled" at once, and the CONNECT is dropped', async () => {
  const proxy = await startProxy({mode: 'stall'});
  const controller = new AbortController();
  const pending = failure(
    new ReleaseHttp({env: {http_proxy: proxy.url}}).text(url, get(controller.signal)),
    BuildxInstallError
  );
  await until(() => proxy.log().length === 1);
  controller.abort(new Error('step cancelled'));
  expect((await pending).message).toBe(`Failed to download checksums.txt from ${url}: cancelled`);
  await until(() => proxy.openConnections() === 0);
});

/** Waits until `cond` holds, however long that takes: each test arranges what makes it hold. */
async function until(cond: () => boolean): Promise<void> {
  while (!cond()) await new Promise(r => setTimeout(r, 5));
}

// prettier-ignore
test.each([
  ['https://github.com/a', 'https://objects.githubusercontent.com/b', undefined],
  ['http://127.0.0.1:1/a', 'http://127.0.0.1:1/b', undefined],
  ['http://mirror.internal/a', 'https://mirror.internal/b', undefined],
  ['https://github.com/a', 'http://objects.githubusercontent.com/b', 'redirected from https to plain http (objects.githubusercontent.com), which is refused'],
  ['https://github.com/a', 'file:///etc/passwd', 'redirected to a file: URL']
])('a redirect from %s to %s: %s', (from, to, refused) => {
  expect(refusedRedirect(new URL(from), new URL(to))).toBe(refused);
});
