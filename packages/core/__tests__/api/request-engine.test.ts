// Unit tests of the RequestEngine on its own: what it sends, how it reads, what it says when a call fails.
// (Retries, Retry-After and hints are covered call by call in builders-client.test.ts and ci-client.test.ts.)
import {describe, expect, test} from '@jest/globals';
import type {CallSpec} from '../../src/api/call-spec.js';
import {pathParam, RequestEngine, type RequestEngineOpts} from '../../src/api/request-engine.js';
import {TransportError} from '../../src/api/http-transport.js';
import {ApiError} from '../../src/errors.js';
import {FakeClock, FakeTransport, json, RecordingLogger, text, transportError, type Step} from './fakes.js';

const TOKEN = 'rbk_engine_5ecret';

function setup(steps: Step[], opts: Partial<RequestEngineOpts> = {}) {
  const transport = new FakeTransport(...steps);
  const clock = new FakeClock();
  const logger = new RecordingLogger();
  const engine = new RequestEngine({
    baseUrl: 'https://api.test/base/',
    token: TOKEN,
    transport,
    clock,
    logger,
    random: () => 0.5,
    ...opts
  });
  return {engine, transport, clock, logger};
}

const spec = (over: Partial<CallSpec> = {}): CallSpec => ({
  method: 'Thing.get',
  call: 'get thing',
  httpMethod: 'GET',
  path: '/api/v1/things',
  idempotent: true,
  retry: true,
  ...over
});

const readThing = (body: string) => {
  const v = JSON.parse(body) as {id?: unknown};
  return typeof v.id === 'string' ? {ok: true as const, value: v.id} : {ok: false as const, reason: 'no id'};
};

describe('RequestEngine', () => {
  test('call() sends below the base URL with the query and JSON body, and reads the answer', async () => {
    const {engine, transport, logger} = setup([json(200, {id: 't1'})]);
    const got = await engine.call(spec({httpMethod: 'POST', query: {a: 'b c'}, body: {x: 1}}), readThing);
    expect(got).toBe('t1');
    const req = transport.requests[0];
    expect(req?.url).toBe('https://api.test/base/api/v1/things?a=b+c');
    expect(req?.body).toBe('{"x":1}');
    expect(req?.headers['Content-Type']).toBe('application/json');
    expect(logger.lines.map(l => l.message)).toEqual(['Thing.get: POST /api/v1/things?a=b+c → 200 in 0 ms (11 bytes)']);
  });

  test('debug logging says what changed: a request line repeats only when its outcome changes, with how many said the same', async () => {
    const {engine, logger} = setup([
      json(404, {}),
      json(404, {}),
      json(404, {}),
      json(200, {id: 't1'}),
      json(200, {id: 't1'}),
      transportError('ECONNRESET', false),
      json(200, {id: 't1'})
    ]);
    const poll = (): Promise<unknown> => engine.send(spec({retry: false}));
    for (let i = 0; i < 7; i++) await poll().catch(() => undefined);
    // A second line's outcomes are its own.
    const other = setup([json(200, {id: 'x'})]);
    await other.engine.send(spec({retry: false, path: '/api/v1/other'}));
    expect(logger.lines.map(l => l.message)).toEqual([
      'Thing.get: GET /api/v1/things → 404 in 0 ms (2 bytes)',
      'Thing.get: GET /api/v1/things → 200 in 0 ms (11 bytes) (after 2 more of 404)',
      'Thing.get: GET /api/v1/things → ECONNRESET in 0 ms (after 1 more of 200)',
      'Thing.get: GET /api/v1/things → 200 in 0 ms (11 bytes)'
    ]);
    expect(other.logger.lines.map(l => l.message)).toEqual(['Thing.get: GET /api/v1/other → 200 in 0 ms (10 bytes)']);
  });

  test("a call's timeoutMs replaces the engine's for each of its attempts, and its timeout hint says so", async () => {
    const {engine, transport} = setup(
      [transportError('ETIMEDOUT', false), json(200, {id: 't1'}), json(200, {id: 't2'}), json(200, {id: 't3'})],
      {requestTimeoutMs: 15000}
    );
    await engine.call(spec({timeoutMs: 600000}), readThing);
    await engine.call(spec(), readThing);
    await engine.call(spec({timeoutMs: 42}), readThing);
    expect(transport.requests.map(r => r.timeoutMs)).toEqual([600000, 600000, 15000, 42]);
    transport.push(transportError('ETIMEDOUT', false));
    const e = await engine.call(spec({timeoutMs: 42, retry: false}), readThing).catch((err: unknown) => err);
    expect((e as ApiError).hint).toBe('no answer within 42 ms');
  });

  test.each([0, -1, Number.NaN])("%#. a call's timeoutMs %p is refused before anything is sent", async timeoutMs => {
    const {engine, transport} = setup([json(200, {id: 't1'})]);
    await expect(engine.call(spec({timeoutMs}), readThing)).rejects.toThrow(
      `API client: timeoutMs must be > 0, got ${timeoutMs}`
    );
    expect(transport.requests).toEqual([]);
  });

  test('an unusable 2xx body is an unexpected response naming the call', async () => {
    const {engine} = setup([json(200, {name: 'x'})]);
    const e = await engine.call(spec(), readThing, 'check the thing').catch((err: unknown) => err);
    expect(e).toBeInstanceOf(ApiError);
    expect((e as ApiError).message).toBe(
      'Failed to get thing: HTTP 200: {"name":"x"} (unexpected response: no id; check the thing)'
    );
  });

  test('a retried failure says how many attempts it took, and the 401 hint carries the scope hint', async () => {
    const {engine, transport, clock} = setup([transportError('ECONNRESET', false), text(401, 'no')]);
    const e = await engine.call(spec({scopeHint: 'needs the "x" scope'}), readThing).catch((err: unknown) => err);
    expect((e as ApiError).status).toBe(401);
    expect((e as ApiError).hint).toBe(
      'check the token: it is missing, wrong or revoked; needs the "x" scope; gave up after 2 attempts'
    );
    expect(transport.requests).toHaveLength(2);
    expect(clock.sleeps).toEqual([100]);
  });

  test('a call that is not idempotent is not repeated after it may have been processed', async () => {
    const {engine, transport} = setup([transportError('ECONNRESET', false)]);
    const e = await engine
      .call(spec({httpMethod: 'POST', idempotent: false, unknownOutcomeHint: 'look before retrying'}), readThing)
      .catch((err: unknown) => err);
    expect((e as ApiError).hint).toBe(
      'the connection was closed before the response was complete; look before retrying'
    );
    expect(transport.requests).toHaveLength(1);
  });

  test.each([
    ['https://127.0.0.1:8080/', 'use http://127.0.0.1:8080'],
    ['https://localhost:8080/base', 'use http://localhost:8080/base'],
    [
      'https://api.test:8080',
      "set baseUrl to the service's HTTPS address (plain http:// is accepted only to a loopback host, such as a local emulator)"
    ]
  ])(
    '%#. https to a server that answers in plain HTTP (%s): said so, with the fix; not retried',
    async (baseUrl, fix) => {
      // Node's words for a TLS handshake answered by a plain-HTTP server (OpenSSL 3).
      const tls = new TransportError(
        'write EPROTO 405D83FEEE7F0000:error:0A00010B:SSL routines:tls_validate_record_header:wrong version number:../deps/openssl/openssl/ssl/record/methods/tlsany_meth.c:77:\n',
        {code: 'EPROTO', notSent: true}
      );
      const {engine, transport} = setup([tls], {baseUrl});
      const e = (await engine.call(spec(), readThing).catch((err: unknown) => err)) as ApiError;
      expect(e.code).toBe('EPROTO');
      const origin = new URL(baseUrl).origin;
      expect(e.hint).toBe(`the server at ${origin} answered in plain HTTP, not TLS: ${fix}`);
      expect(transport.requests).toHaveLength(1);
    }
  );

  test('another EPROTO is retried as before and gets no plain-HTTP hint', async () => {
    const {engine, transport} = setup([transportError('EPROTO', true), json(200, {id: 't1'})]);
    expect(await engine.call(spec(), readThing)).toBe('t1');
    expect(transport.requests).toHaveLength(2);
  });

  test.each([
    [
      'http://127.0.0.1:8080/api/v1/',
      'baseUrl http://127.0.0.1:8080/api/v1 ends in /api/v1, which every endpoint path already starts with, so this request went to /api/v1/api/v1/…: drop the suffix and use http://127.0.0.1:8080'
    ],
    [
      'https://api.test/prefix/api/v1',
      'baseUrl https://api.test/prefix/api/v1 ends in /api/v1, which every endpoint path already starts with, so this request went to /prefix/api/v1/api/v1/…: drop the suffix and use https://api.test/prefix'
    ],
    ['https://api.test/api/v2', 'no such thing']
  ])('%#. a 404 below a base URL that ends in /api/v1 (%s) says to drop the suffix', async (baseUrl, hint) => {
    const {engine, transport} = setup([text(404, 'not found')], {baseUrl});
    const e = (await engine
      .call(spec({notFoundHint: 'no such thing'}), readThing)
      .catch((err: unknown) => err)) as ApiError;
    expect(e.hint).toBe(hint);
    // Used as given: the spec does not rule out a service mounted below /api/v1.
    expect(transport.requests[0]?.url).toBe(`${baseUrl.replace(/\/+$/, '')}/api/v1/things`);
  });

  test('inputNames: hints name the settings to fix as the caller calls them (the CLI: its flags)', async () => {
    const {engine} = setup([text(401, 'no'), text(302, '', {location: 'https://elsewhere.test/'})], {
      inputNames: {apiKey: 'API key (--api-key)', apiUrl: '--api-url'}
    });
    const unauthorized = (await engine.call(spec({retry: false}), readThing).catch((err: unknown) => err)) as ApiError;
    expect(unauthorized.hint).toBe('check the API key (--api-key): it is missing, wrong or revoked');
    const redirected = (await engine.call(spec({retry: false}), readThing).catch((err: unknown) => err)) as ApiError;
    expect(redirected.hint).toContain("set --api-url to the service's API base");
  });

  test('of() keeps a given engine and builds one from options', () => {
    const {engine} = setup([]);
    expect(RequestEngine.of({engine})).toBe(engine);
    const built = RequestEngine.of({baseUrl: 'http://127.0.0.1:1/x//', token: '', transport: new FakeTransport()});
    expect(built).toBeInstanceOf(RequestEngine);
    expect(built.baseUrl).toBe('http://127.0.0.1:1/x');
  });

  test.each([
    [{baseUrl: 'nope'}, TypeError, 'API client: baseUrl "nope" is not a URL'],
    [{baseUrl: 'ftp://x'}, TypeError, 'API client: baseUrl "ftp://x" must be an http or https URL'],
    [{requestTimeoutMs: 0}, RangeError, 'API client: requestTimeoutMs must be > 0, got 0']
  ])('%#. refuses %j', (opts, type, message) => {
    expect(() => setup([], opts)).toThrow(type);
    expect(() => setup([], opts)).toThrow(message);
  });

  test.each([
    ['a/b', 'a%2Fb'],
    ['%2e', '%252e']
  ])('%#. pathParam encodes %j', (value, encoded) => {
    expect(pathParam('id', value)).toBe(encoded);
  });

  test.each(['', '.', '..'])('%#. pathParam refuses %j', value => {
    expect(() => pathParam('id', value)).toThrow(`API client: id "${value}" is not valid`);
  });
});
