import * as http from 'node:http';
import type {AddressInfo, LookupFunction, Socket} from 'node:net';
import {afterEach, describe, expect, test} from '@jest/globals';
import {NodeHttpTransport, TransportError, type HttpRequest} from '../../src/api/http-transport.js';
import type {ProxyEnv} from '../../src/net/proxy-env.js';
import {ProxyError} from '../../src/net/proxy-error.js';
import {
  API_HOST,
  apiTls,
  closedPort,
  runCleanups,
  startProxy,
  startServer as startRecordingServer
} from '../net/net-helpers.js';
import {failure} from '../fakes/failure.js';

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void;

interface TestServer {
  url: string;
  connections: Set<Socket>;
  connectionCount(): number;
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
  await runCleanups();
});

async function startServer(handler: Handler): Promise<TestServer> {
  const connections = new Set<Socket>();
  let total = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handler(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  server.on('connection', (s: Socket) => {
    total++;
    connections.add(s);
    s.on('close', () => connections.delete(s));
  });
  server.keepAliveTimeout = 0;
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>(resolve => {
        server.closeAllConnections();
        server.close(() => resolve());
      })
  );
  const {port} = server.address() as AddressInfo;
  return {url: `http://127.0.0.1:${port}`, connections, connectionCount: () => total};
}

function transport(): NodeHttpTransport {
  const t = new NodeHttpTransport();
  cleanups.push(() => t.close());
  return t;
}

function get(url: string, extra: Partial<HttpRequest> = {}): HttpRequest {
  return {method: 'GET', url, headers: {Accept: 'application/json'}, timeoutMs: 2000, ...extra};
}

/** Waits until `cond` holds, however long that takes: what makes it hold is arranged by each test, not timed. */
async function until(cond: () => boolean): Promise<void> {
  while (!cond()) await new Promise(r => setTimeout(r, 5));
}

const tcpSockets = (): number => process.getActiveResourcesInfo().filter(r => r === 'TCPSocketWrap').length;

describe('NodeHttpTransport', () => {
  test('round-trips method, path, headers and body', async () => {
    const server = await startServer((req, res, body) => {
      res.setHeader('X-Echo-Method', req.method ?? '');
      res.setHeader('Set-Cookie', ['a=1', 'b=2']);
      res.writeHead(201, {'Content-Type': 'application/json'});
      res.end(JSON.stringify({url: req.url, headers: req.headers, body}));
    });
    const res = await transport().request({
      method: 'POST',
      url: `${server.url}/api/v1/builders/assign?x=1`,
      headers: {Accept: 'application/json', 'Content-Type': 'application/json', Authorization: 'Bearer t'},
      body: '{"profile_name":"ü"}',
      timeoutMs: 2000
    });
    expect(res.status).toBe(201);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.headers['x-echo-method']).toBe('POST');
    expect(res.headers['set-cookie']).toBe('a=1, b=2');
    const echoed = JSON.parse(res.body) as {url: string; headers: Record<string, string>; body: string};
    expect(echoed.url).toBe('/api/v1/builders/assign?x=1');
    expect(echoed.body).toBe('{"profile_name":"ü"}');
    expect(echoed.headers).toMatchObject({
      accept: 'application/json',
      'content-type': 'application/json',
      authorization: 'Bearer t',
      'content-length': String(Buffer.byteLength('{"profile_name":"ü"}')),
      connection: 'keep-alive'
    });
  });

  test('returns error statuses as responses', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(503, {'Retry-After': '2'});
      res.end('busy');
    });
    const res = await transport().request(get(server.url));
    expect(res).toMatchObject({status: 503, body: 'busy'});
    expect(res.headers['retry-after']).toBe('2');
  });

  test('reuses one keep-alive connection', async () => {
    const server = await startServer((_req, res) => res.end('ok'));
    const t = transport();
    await t.request(get(server.url));
    await t.request(get(server.url));
    expect(server.connectionCount()).toBe(1);
  });

  test('a server that never answers times out: ETIMEDOUT, notSent false', async () => {
    const arrived: string[] = [];
    const server = await startServer(req => arrived.push(req.url ?? ''));
    const e = await failure(transport().request(get(`${server.url}/slow`, {timeoutMs: 150})), TransportError);
    // The cause is the request's own limit, after the request reached the server.
    expect(e).toMatchObject({code: 'ETIMEDOUT', notSent: false, message: 'no answer within 150 ms'});
    expect(arrived).toEqual(['/slow']);
  });

  test('the timeout covers a slow body, not only the headers', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, {'Content-Length': '10'});
      res.write('abc');
    });
    const e = await failure(transport().request(get(server.url, {timeoutMs: 150})), TransportError);
    expect(e.code).toBe('ETIMEDOUT');
    expect(e.notSent).toBe(false);
  });

  test('a closed port is refused: ECONNREFUSED, notSent true', async () => {
    const port = await closedPort();
    const e = await failure(transport().request(get(`http://127.0.0.1:${port}/`)), TransportError);
    expect(e.code).toBe('ECONNREFUSED');
    expect(e.notSent).toBe(true);
  });

  test('a connection reset mid-response: ECONNRESET, notSent false', async () => {
    const server = await startServer((req, res) => {
      res.writeHead(200, {'Content-Length': '100'});
      res.write('partial', () => req.socket.destroy());
    });
    const e = await failure(transport().request(get(server.url)), TransportError);
    expect(e.code).toBe('ECONNRESET');
    expect(e.notSent).toBe(false);
  });

  test('a connection closed before any response: ECONNRESET, notSent false', async () => {
    const server = await startServer(req => req.socket.destroy());
    const e = await failure(transport().request(get(server.url)), TransportError);
    expect(e.code).toBe('ECONNRESET');
    expect(e.notSent).toBe(false);
  });

  test('abort while waiting for the answer: EABORTED, notSent false', async () => {
    const controller = new AbortController();
    const server = await startServer(() => controller.abort());
    const e = await failure(transport().request(get(server.url, {signal: controller.signal})), TransportError);
    expect(e.code).toBe('EABORTED');
    expect(e.notSent).toBe(false);
  });

  test('an already aborted signal sends nothing: EABORTED, notSent true', async () => {
    const server = await startServer((_req, res) => res.end('ok'));
    const e = await failure(transport().request(get(server.url, {signal: AbortSignal.abort()})), TransportError);
    expect(e.code).toBe('EABORTED');
    expect(e.notSent).toBe(true);
    expect(server.connectionCount()).toBe(0);
  });

  test('rejects a body larger than maxResponseBytes', async () => {
    const server = await startServer((_req, res) => res.end('x'.repeat(5000)));
    const t = new NodeHttpTransport({maxResponseBytes: 1000});
    cleanups.push(() => t.close());
    const e = await failure(t.request(get(server.url)), TransportError);
    expect(e.code).toBe('ERESPONSETOOLARGE');
    expect(e.notSent).toBe(false);
  });

  test('close() drops the keep-alive sockets and refuses later requests', async () => {
    await until(() => tcpSockets() === 0);
    const server = await startServer((_req, res) => res.end('ok'));
    const t = new NodeHttpTransport();
    await t.request(get(server.url));
    expect(server.connections.size).toBe(1);
    t.close();
    // The server keeps idle connections for ever (keepAliveTimeout 0), so only the client can have closed this one.
    await until(() => server.connections.size === 0);
    await until(() => tcpSockets() === 0);
    const e = await failure(t.request(get(server.url)), TransportError);
    expect(e.code).toBe('ECLOSED');
    expect(e.notSent).toBe(true);
  });

  test.each(['not a url', 'ftp://127.0.0.1/'])('%#. rejects %j as not sent', async url => {
    const e = await failure(transport().request(get(url)), TransportError);
    expect(e.notSent).toBe(true);
  });
});

describe('NodeHttpTransport through a proxy', () => {
  function via(env: ProxyEnv, extra: {ca?: string; lookup?: LookupFunction} = {}): NodeHttpTransport {
    const t = new NodeHttpTransport({env, ...extra});
    cleanups.push(() => t.close());
    return t;
  }

  test('https: CONNECT to a name only the proxy resolves, TLS to the API over the tunnel', async () => {
    const material = await apiTls();
    const api = await startRecordingServer({tls: material});
    const proxy = await startProxy();
    const t = via({HTTPS_PROXY: proxy.url}, {ca: material.caCert});
    const res = await t.request(get(`https://${API_HOST}:${api.port}/api/v1/builder-profiles?page=1`));
    expect(res).toMatchObject({status: 200, body: '{"ok":true}'});
    expect(api.requests).toEqual([
      {method: 'GET', url: '/api/v1/builder-profiles?page=1', host: `${API_HOST}:${api.port}`}
    ]);
    expect(proxy.log()).toEqual([{method: 'CONNECT', target: `${API_HOST}:${api.port}`, status: 200}]);
  });

  test('keeps the tunnelled connection alive: two requests, one CONNECT', async () => {
    const material = await apiTls();
    const api = await startRecordingServer({tls: material});
    const proxy = await startProxy();
    const t = via({https_proxy: proxy.url}, {ca: material.caCert});
    await t.request(get(`https://${API_HOST}:${api.port}/a`));
    await t.request(get(`https://${API_HOST}:${api.port}/b`));
    expect(api.requests.map(r => r.url)).toEqual(['/a', '/b']);
    expect(proxy.tunnels()).toEqual([`${API_HOST}:${api.port}`]);
  });

  test('http: through HTTP_PROXY, also tunnelled (as @actions/http-client does)', async () => {
    const api = await startRecordingServer();
    const proxy = await startProxy();
    const res = await via({HTTP_PROXY: proxy.url}).request({
      method: 'POST',
      url: `http://${API_HOST}:${api.port}/api/v1/builders/assign`,
      headers: {'Content-Type': 'application/json'},
      body: '{"profile_name":"p"}',
      timeoutMs: 2000
    });
    expect(res.status).toBe(200);
    expect(api.requests).toEqual([{method: 'POST', url: '/api/v1/builders/assign', host: `${API_HOST}:${api.port}`}]);
    expect(proxy.tunnels()).toEqual([`${API_HOST}:${api.port}`]);
  });

  test('proxy credentials go to the proxy only, as Proxy-Authorization', async () => {
    const material = await apiTls();
    const seen: (string | undefined)[] = [];
    const api = await startRecordingServer({
      tls: material,
      handler: (req, res) => {
        seen.push(req.headers['proxy-authorization']);
        res.end('ok');
      }
    });
    const proxy = await startProxy({auth: {username: 'jo', password: 's3cret'}});
    const t = via({HTTPS_PROXY: proxy.urlWith('jo', 's3cret')}, {ca: material.caCert});
    expect((await t.request(get(`https://${API_HOST}:${api.port}/`))).status).toBe(200);
    expect(proxy.log()).toEqual([{method: 'CONNECT', target: `${API_HOST}:${api.port}`, status: 200, user: 'jo'}]);
    expect(seen).toEqual([undefined]);
  });

  test('loopback API URLs bypass the proxy', async () => {
    const api = await startRecordingServer();
    const proxy = await startProxy();
    const t = via({HTTPS_PROXY: proxy.url, HTTP_PROXY: proxy.url});
    expect((await t.request(get(`http://127.0.0.1:${api.port}/x`))).status).toBe(200);
    expect((await t.request(get(`http://localhost:${api.port}/y`))).status).toBe(200);
    expect(api.requests.map(r => r.url)).toEqual(['/x', '/y']);
    expect(proxy.log()).toEqual([]);
  });

  test('NO_PROXY entries bypass the proxy; the same host without them goes through it', async () => {
    const api = await startRecordingServer();
    const proxy = await startProxy();
    const lookups: string[] = [];
    // Direct connections resolve through this map: the test never asks DNS for a .test name.
    const lookup = ((hostname: string, opts: {all?: boolean}, cb: (e: Error | null, ...r: unknown[]) => void) => {
      lookups.push(hostname);
      if (opts.all) cb(null, [{address: '127.0.0.1', family: 4}]);
      else cb(null, '127.0.0.1', 4);
    }) as unknown as LookupFunction;
    const url = `http://${API_HOST}:${api.port}/z`;
    expect(
      (await via({HTTP_PROXY: proxy.url, NO_PROXY: 'remote-builder.test'}, {lookup}).request(get(url))).status
    ).toBe(200);
    expect(proxy.log()).toEqual([]);
    expect(lookups).toEqual([API_HOST]);
    expect((await via({HTTP_PROXY: proxy.url, NO_PROXY: 'other.test'}, {lookup}).request(get(url))).status).toBe(200);
    expect(proxy.tunnels()).toEqual([`${API_HOST}:${api.port}`]);
    expect(lookups).toEqual([API_HOST]);
    expect(api.requests).toHaveLength(2);
  });

  test('direct https: concurrent requests on new connections trust `ca`; without it the handshake fails, not sent', async () => {
    const material = await apiTls();
    const api = await startRecordingServer({tls: material});
    const lookup = ((_host: string, opts: {all?: boolean}, cb: (e: Error | null, ...r: unknown[]) => void) =>
      opts.all ? cb(null, [{address: '127.0.0.1', family: 4}]) : cb(null, '127.0.0.1', 4)) as unknown as LookupFunction;
    const url = (path: string): string => `https://${API_HOST}:${api.port}${path}`;
    const trusting = new NodeHttpTransport({env: {}, ca: material.caCert, lookup});
    cleanups.push(() => trusting.close());
    // Three at once: three connections, each made with the transport's one TLS context.
    const answers = await Promise.all(['/a', '/b', '/c'].map(p => trusting.request(get(url(p)))));
    expect(answers.map(a => a.status)).toEqual([200, 200, 200]);
    const doubting = new NodeHttpTransport({env: {}, lookup});
    cleanups.push(() => doubting.close());
    const e = await failure(doubting.request(get(url('/d'))), TransportError);
    expect(e).toMatchObject({notSent: true, code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE'});
    expect(api.requests.map(r => r.url).sort()).toEqual(['/a', '/b', '/c']);
  });

  test('an API certificate nobody vouches for fails the TLS handshake: not sent, names the proxy and the fix', async () => {
    const material = await apiTls();
    const api = await startRecordingServer({tls: material});
    const proxy = await startProxy();
    const e = await failure(
      via({HTTPS_PROXY: proxy.url}).request(get(`https://${API_HOST}:${api.port}/`)),
      TransportError
    );
    expect(e).toBeInstanceOf(ProxyError);
    expect(e).toMatchObject({notSent: true, failure: 'tls', code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE'});
    expect(e.message).toBe(
      `the TLS handshake with ${API_HOST}:${api.port} through the proxy ${proxy.url} failed ` +
        '(UNABLE_TO_VERIFY_LEAF_SIGNATURE: unable to verify the first certificate): trust the CA that signed ' +
        `${API_HOST}:${api.port}'s certificate (or the proxy's, if it inspects TLS) with NODE_EXTRA_CA_CERTS`
    );
    expect(api.requests).toEqual([]);
  });

  test.each([
    [
      '407 without credentials',
      {auth: {username: 'jo', password: 'pw'}},
      'EPROXYAUTH',
      /^the proxy http:\/\/127\.0\.0\.1:\d+ refused the tunnel to api\.remote-builder\.test:\d+ \(HTTP 407 Proxy Authentication Required\): HTTPS_PROXY has no credentials: give them as http:\/\/user:password@host:port$/
    ],
    [
      '403',
      {mode: 'refuse' as const},
      'EPROXYFORBIDDEN',
      /^the proxy http:\/\/127\.0\.0\.1:\d+ refused the tunnel to api\.remote-builder\.test:\d+ \(HTTP 403 Forbidden\): ask its administrator/
    ],
    [
      'a hang-up',
      {mode: 'reset' as const},
      'ECONNRESET',
      /^the proxy http:\/\/127\.0\.0\.1:\d+ closed the connection while opening the tunnel to api\.remote-builder\.test:\d+ \(ECONNRESET\): check HTTPS_PROXY$/
    ]
  ])('%#. %s: a ProxyError, not sent, nothing reaches the API', async (_what, opts, code, message) => {
    const material = await apiTls();
    const api = await startRecordingServer({tls: material});
    const proxy = await startProxy(opts);
    const e = await failure(
      via({HTTPS_PROXY: proxy.url}, {ca: material.caCert}).request(get(`https://${API_HOST}:${api.port}/`)),
      TransportError
    );
    expect(e).toBeInstanceOf(ProxyError);
    expect(e).toMatchObject({code, notSent: true});
    expect(e.message).toMatch(message);
    expect(api.requests).toEqual([]);
    // One CONNECT: a refusal or a hang-up is final, undici does not dial the proxy again.
    expect(proxy.log()).toHaveLength(1);
  });

  test('a proxy that is down: ECONNREFUSED, not sent, says so', async () => {
    const port = await closedPort();
    const e = await failure(
      via({HTTPS_PROXY: `http://127.0.0.1:${port}`}).request(get(`https://${API_HOST}/`)),
      TransportError
    );
    expect(e).toBeInstanceOf(ProxyError);
    expect(e).toMatchObject({code: 'ECONNREFUSED', notSent: true});
    expect(e.message).toBe(`cannot reach the proxy http://127.0.0.1:${port} (ECONNREFUSED): check HTTPS_PROXY`);
  });

  test('a proxy that never answers the CONNECT: the request times out as a proxy failure and the tunnel is dropped', async () => {
    const proxy = await startProxy({mode: 'stall'});
    const e = await failure(
      via({HTTPS_PROXY: proxy.url}).request(get(`https://${API_HOST}:9/`, {timeoutMs: 150})),
      TransportError
    );
    expect(e).toBeInstanceOf(ProxyError);
    expect(e).toMatchObject({code: 'ETIMEDOUT', notSent: true});
    expect(e.message).toBe(
      `the proxy ${proxy.url} did not open the tunnel to ${API_HOST}:9 within 150 ms: check HTTPS_PROXY`
    );
    await until(() => proxy.openConnections() === 0);
  });

  test('abort while the tunnel is being opened: EABORTED, not sent', async () => {
    const proxy = await startProxy({mode: 'stall'});
    const controller = new AbortController();
    const pending = via({HTTPS_PROXY: proxy.url}).request(get(`https://${API_HOST}/`, {signal: controller.signal}));
    await until(() => proxy.log().length === 1);
    controller.abort();
    const e = await failure(pending, TransportError);
    expect(e).toMatchObject({code: 'EABORTED', notSent: true});
    await until(() => proxy.openConnections() === 0);
  });

  test('an unusable proxy variable: EPROXYCONFIG, not sent, nothing connects', async () => {
    const e = await failure(
      via({HTTPS_PROXY: 'socks5://jo:s3cret@proxy.corp:1080'}).request(get(`https://${API_HOST}/`)),
      TransportError
    );
    expect(e).toBeInstanceOf(ProxyError);
    expect(e).toMatchObject({code: 'EPROXYCONFIG', notSent: true});
    expect(e.message).toBe('HTTPS_PROXY must be an http:// or https:// proxy URL, got socks5://proxy.corp:1080');
  });

  test('close() drops tunnelled keep-alive connections and tunnels being opened', async () => {
    await until(() => tcpSockets() === 0);
    const material = await apiTls();
    const api = await startRecordingServer({tls: material, keepIdle: true});
    const proxy = await startProxy();
    const t = new NodeHttpTransport({env: {HTTPS_PROXY: proxy.url}, ca: material.caCert});
    await t.request(get(`https://${API_HOST}:${api.port}/`));
    expect(proxy.openConnections()).toBe(1);
    proxy.setMode('stall');
    const pending = t.request(get(`https://other.remote-builder.test:${api.port}/`));
    await until(() => proxy.log().length === 2);
    t.close();
    expect((await failure(pending, TransportError)).notSent).toBe(true);
    // Neither the API (keepIdle) nor the proxy closes an idle tunnel: only the client can have.
    await until(() => proxy.openConnections() === 0);
    await until(() => tcpSockets() === 0);
  });
});
