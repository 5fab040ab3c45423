import * as http from 'node:http';
import type {AddressInfo, Socket} from 'node:net';
import {afterEach, describe, expect, test} from '@jest/globals';
import {NodeHttpTransport, TransportError, type HttpRequest} from '../../src/api/http-transport.js';

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void;

interface TestServer {
  url: string;
  connections: Set<Socket>;
  connectionCount(): number;
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
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

async function failure(p: Promise<unknown>): Promise<TransportError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(TransportError);
    return e as TransportError;
  }
  throw new Error('expected a TransportError');
}

async function until(cond: () => boolean, ms = 2000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise(r => setTimeout(r, 5));
  }
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
    const server = await startServer(() => undefined);
    const started = Date.now();
    const e = await failure(transport().request(get(server.url, {timeoutMs: 150})));
    expect(e.code).toBe('ETIMEDOUT');
    expect(e.notSent).toBe(false);
    expect(Date.now() - started).toBeLessThan(1500);
  });

  test('the timeout covers a slow body, not only the headers', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, {'Content-Length': '10'});
      res.write('abc');
    });
    const e = await failure(transport().request(get(server.url, {timeoutMs: 150})));
    expect(e.code).toBe('ETIMEDOUT');
    expect(e.notSent).toBe(false);
  });

  test('a closed port is refused: ECONNREFUSED, notSent true', async () => {
    const probe = http.createServer();
    await new Promise<void>(resolve => probe.listen(0, '127.0.0.1', resolve));
    const {port} = probe.address() as AddressInfo;
    await new Promise<void>(resolve => probe.close(() => resolve()));
    const e = await failure(transport().request(get(`http://127.0.0.1:${port}/`)));
    expect(e.code).toBe('ECONNREFUSED');
    expect(e.notSent).toBe(true);
  });

  test('a connection reset mid-response: ECONNRESET, notSent false', async () => {
    const server = await startServer((req, res) => {
      res.writeHead(200, {'Content-Length': '100'});
      res.write('partial', () => req.socket.destroy());
    });
    const e = await failure(transport().request(get(server.url)));
    expect(e.code).toBe('ECONNRESET');
    expect(e.notSent).toBe(false);
  });

  test('a connection closed before any response: ECONNRESET, notSent false', async () => {
    const server = await startServer(req => req.socket.destroy());
    const e = await failure(transport().request(get(server.url)));
    expect(e.code).toBe('ECONNRESET');
    expect(e.notSent).toBe(false);
  });

  test('abort while waiting for the answer: EABORTED, notSent false', async () => {
    const controller = new AbortController();
    const server = await startServer(() => controller.abort());
    const e = await failure(transport().request(get(server.url, {signal: controller.signal})));
    expect(e.code).toBe('EABORTED');
    expect(e.notSent).toBe(false);
  });

  test('an already aborted signal sends nothing: EABORTED, notSent true', async () => {
    const server = await startServer((_req, res) => res.end('ok'));
    const e = await failure(transport().request(get(server.url, {signal: AbortSignal.abort()})));
    expect(e.code).toBe('EABORTED');
    expect(e.notSent).toBe(true);
    expect(server.connectionCount()).toBe(0);
  });

  test('rejects a body larger than maxResponseBytes', async () => {
    const server = await startServer((_req, res) => res.end('x'.repeat(5000)));
    const t = new NodeHttpTransport({maxResponseBytes: 1000});
    cleanups.push(() => t.close());
    const e = await failure(t.request(get(server.url)));
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
    // The server keeps idle connections for 5 s, so only the client can have closed this one.
    await until(() => server.connections.size === 0, 1000);
    await until(() => tcpSockets() === 0, 1000);
    const e = await failure(t.request(get(server.url)));
    expect(e.code).toBe('ECLOSED');
    expect(e.notSent).toBe(true);
  });

  test.each(['not a url', 'ftp://127.0.0.1/'])('%#. rejects %j as not sent', async url => {
    const e = await failure(transport().request(get(url)));
    expect(e.notSent).toBe(true);
  });
});
