import {readFileSync} from 'node:fs';
import {describe, expect, test} from '@jest/globals';
import {BuildersClient} from '../../src/api/builders-client.js';
import {ACTION_INPUT_NAMES, type RequestEngineOpts} from '../../src/api/request-engine.js';
import type {HttpResponse} from '../../src/api/http-transport.js';
import {ApiError, InputError, PartialAssignError} from '../../src/errors.js';
import {USER_AGENT} from '../../src/version.js';
import {FakeClock, FakeTransport, json, RecordingLogger, text, transportError, type Step} from './fakes.js';

const TOKEN = 'rbk_live_5ecret_T0ken';
const BASE = 'https://api.test';
const fixture = (name: string): string => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
const ASSIGN_BODY = fixture('assign.json');
const DETAILS_BODY = fixture('details.json');
const ok = (body: string): HttpResponse => ({status: 200, headers: {'content-type': 'application/json'}, body});

function setup(steps: Step[], opts: Partial<RequestEngineOpts> = {}) {
  const transport = new FakeTransport(...steps);
  const clock = new FakeClock();
  const logger = new RecordingLogger();
  const client = new BuildersClient({
    baseUrl: BASE,
    token: TOKEN,
    transport,
    clock,
    logger,
    random: () => 0.5,
    ...opts
  });
  return {client, transport, clock, logger};
}

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected the call to fail');
}

async function apiError(p: Promise<unknown>): Promise<ApiError> {
  const e = await rejection(p);
  expect(e).toBeInstanceOf(ApiError);
  return e as ApiError;
}

/** Runs one call of each kind, for tables over calls. */
const calls = {
  assign: (c: BuildersClient) => c.assignBuilder('ci-large'),
  details: (c: BuildersClient) => c.getBuilderDetails('bld-1'),
  teardown: (c: BuildersClient) => c.teardownBuilder('bld-1'),
  profiles: (c: BuildersClient) => c.listBuilderProfiles(),
  reset: (c: BuildersClient) => c.resetBuilderProfileCache('prof-1')
} as const;
const okBodies: Record<keyof typeof calls, string> = {
  assign: ASSIGN_BODY,
  details: DETAILS_BODY,
  teardown: '{}',
  profiles: '[]',
  reset: '{}'
};

describe('requests', () => {
  const base = {Accept: 'application/json', Authorization: `Bearer ${TOKEN}`, 'User-Agent': USER_AGENT};

  test.each([
    [
      'assign',
      'POST',
      '/api/v1/builders/assign',
      {...base, 'Content-Type': 'application/json'},
      '{"profile_name":"ci-large"}'
    ],
    ['details', 'GET', '/api/v1/builders/bld-1/details', base, undefined],
    ['teardown', 'DELETE', '/api/v1/builders/bld-1/teardown', base, undefined],
    ['profiles', 'GET', '/api/v1/builder-profiles?page=1&per_page=100', base, undefined],
    ['reset', 'POST', '/api/v1/builder-profiles/prof-1/cache/reset', base, undefined]
  ] as const)('%#. %s sends %s %s with exactly the required headers', async (call, method, path, headers, body) => {
    const {client, transport} = setup([ok(okBodies[call])]);
    await calls[call](client);
    expect(transport.requests).toHaveLength(1);
    const req = transport.requests[0];
    expect(req.method).toBe(method);
    expect(req.url).toBe(BASE + path);
    expect(req.headers).toEqual(headers);
    expect(req.body).toBe(body);
    expect(req.timeoutMs).toBe(15000);
  });

  test.each([
    ['https://api.test', 'https://api.test/api/v1/builders/b/details'],
    ['https://api.test/', 'https://api.test/api/v1/builders/b/details'],
    ['https://api.test/prefix', 'https://api.test/prefix/api/v1/builders/b/details'],
    ['https://api.test/prefix/', 'https://api.test/prefix/api/v1/builders/b/details'],
    ['https://api.test/a/b//', 'https://api.test/a/b/api/v1/builders/b/details'],
    ['http://127.0.0.1:8080/x?ignored=1#frag', 'http://127.0.0.1:8080/x/api/v1/builders/b/details']
  ])('%#. joins base %s', async (baseUrl, url) => {
    const {client, transport} = setup([ok(DETAILS_BODY)], {baseUrl});
    await client.getBuilderDetails('b');
    expect(transport.requests[0].url).toBe(url);
  });

  test('encodes path params', async () => {
    const {client, transport} = setup([ok('{}'), ok(DETAILS_BODY)]);
    await client.teardownBuilder('a/b c?#');
    await client.getBuilderDetails('ünï');
    expect(transport.requests.map(r => r.url)).toEqual([
      `${BASE}/api/v1/builders/a%2Fb%20c%3F%23/teardown`,
      `${BASE}/api/v1/builders/%C3%BCn%C3%AF/details`
    ]);
  });

  test.each(['', '.', '..'])('%#. rejects the builder id "%s" without a request', async id => {
    const {client, transport} = setup([]);
    await expect(client.getBuilderDetails(id)).rejects.toThrow(TypeError);
    expect(transport.requests).toHaveLength(0);
  });

  test('rejects an empty profile name as an input error', async () => {
    const {client, transport} = setup([]);
    await expect(client.assignBuilder('  ')).rejects.toThrow(InputError);
    expect(transport.requests).toHaveLength(0);
  });

  test.each(['not a url', 'ftp://api.test', ''])('%#. rejects baseUrl %j', baseUrl => {
    expect(() => new BuildersClient({baseUrl, token: TOKEN, transport: new FakeTransport()})).toThrow(TypeError);
  });

  test('uses the configured user agent and timeout, and passes the signal on', async () => {
    const signal = new AbortController().signal;
    const {client, transport} = setup([ok(DETAILS_BODY)], {userAgent: 'test-agent/1', requestTimeoutMs: 1234});
    await client.getBuilderDetails('b', {signal});
    expect(transport.requests[0].headers['User-Agent']).toBe('test-agent/1');
    expect(transport.requests[0].timeoutMs).toBe(1234);
    expect(transport.requests[0].signal).toBe(signal);
  });

  test('sends no Authorization header for an empty token', async () => {
    const {client, transport, logger} = setup([ok(DETAILS_BODY)], {token: ''});
    await client.getBuilderDetails('b');
    expect(Object.keys(transport.requests[0].headers)).not.toContain('Authorization');
    expect(logger.secrets).toEqual([]);
  });

  test('registers the token as a secret', () => {
    const {logger} = setup([]);
    expect(logger.secrets).toEqual([TOKEN]);
  });

  test('close() closes the transport', () => {
    const {client, transport} = setup([]);
    client.close();
    expect(transport.closed).toBe(true);
  });
});

describe('debug log', () => {
  test('logs method, path, status, duration and size, never the token or key material', async () => {
    const {client, clock, logger} = setup([
      () => {
        clock.t += 37;
        return ok(DETAILS_BODY);
      }
    ]);
    await client.getBuilderDetails('bld-1');
    expect(logger.lines).toEqual([
      {
        level: 'debug',
        message: `BuildersClient.getBuilderDetails: GET /api/v1/builders/bld-1/details → 200 in 37 ms (${Buffer.byteLength(DETAILS_BODY)} bytes)`
      }
    ]);
  });

  test('logs transport errors and retries', async () => {
    const {client, logger} = setup([transportError('ECONNRESET', false), ok('{}')]);
    await client.teardownBuilder('b');
    expect(logger.lines.map(l => l.message)).toEqual([
      'BuildersClient.teardownBuilder: DELETE /api/v1/builders/b/teardown → ECONNRESET in 0 ms',
      'BuildersClient.teardownBuilder: retrying in 100 ms (attempt 2 of 4)',
      'BuildersClient.teardownBuilder: DELETE /api/v1/builders/b/teardown → 200 in 0 ms (2 bytes)'
    ]);
  });

  test('no log line holds the token, the key, the cert or the ca', async () => {
    const {client, logger} = setup([
      text(401, `bad token ${TOKEN}`),
      ok(DETAILS_BODY),
      text(500, DETAILS_BODY),
      ok(DETAILS_BODY)
    ]);
    await rejection(client.assignBuilder('p'));
    await client.getBuilderDetails('b');
    await client.getBuilderDetails('b');
    expect(logger.lines.length).toBeGreaterThan(3);
    for (const secret of [TOKEN, 'SECRETKEYMATERIAL', 'fakeCERT', 'fakeCA', 'PRIVATE KEY']) {
      expect(logger.text).not.toContain(secret);
    }
  });
});

describe('retries', () => {
  const retriedForAll: [string, Step][] = [
    ['429', text(429, 'slow down')],
    ['503', text(503, 'unavailable')],
    ['ECONNREFUSED notSent', transportError('ECONNREFUSED', true)],
    ['ENOTFOUND notSent', transportError('ENOTFOUND', true)],
    ['ETIMEDOUT before connect', transportError('ETIMEDOUT', true)]
  ];
  const retriedOnlyWhenIdempotent: [string, Step][] = [
    ['500', text(500, 'boom')],
    ['502', text(502, 'bad gateway')],
    ['504', text(504, 'gateway timeout')],
    ['408', text(408, 'request timeout')],
    ['ECONNRESET after send', transportError('ECONNRESET', false)],
    ['ETIMEDOUT after send', transportError('ETIMEDOUT', false)]
  ];
  const neverRetried: [string, Step][] = [
    ['400', text(400, 'bad')],
    ['401', text(401, 'who')],
    ['403', text(403, 'no')],
    ['404', text(404, 'gone')],
    ['409', text(409, 'conflict')],
    ['422', text(422, 'invalid')],
    ['501', text(501, 'not implemented')],
    ['EABORTED without a caller abort', transportError('EABORTED', true)],
    ['ECLOSED', transportError('ECLOSED', true)]
  ];

  describe.each(['details', 'reset', 'profiles'] as const)('idempotent call %s', call => {
    test.each([...retriedForAll, ...retriedOnlyWhenIdempotent])('%#. %s is retried', async (_name, failure) => {
      const {client, transport, clock} = setup([failure, ok(okBodies[call])]);
      await calls[call](client);
      expect(transport.requests).toHaveLength(2);
      expect(clock.sleeps).toHaveLength(1);
    });

    test.each(neverRetried)('%#. %s is not retried', async (_name, failure) => {
      const {client, transport} = setup([failure, ok(okBodies[call])]);
      await apiError(calls[call](client));
      expect(transport.requests).toHaveLength(1);
    });
  });

  describe('assign (not idempotent)', () => {
    test.each(retriedForAll)('%#. %s is retried', async (_name, failure) => {
      const {client, transport} = setup([failure, ok(ASSIGN_BODY)]);
      await client.assignBuilder('p');
      expect(transport.requests).toHaveLength(2);
    });

    test.each([...retriedOnlyWhenIdempotent, ...neverRetried])('%#. %s is not retried', async (_name, failure) => {
      const {client, transport, clock} = setup([failure, ok(ASSIGN_BODY)]);
      await apiError(client.assignBuilder('p'));
      expect(transport.requests).toHaveLength(1);
      expect(clock.sleeps).toEqual([]);
    });
  });

  test('teardown is retried, and a 404 after a lost success counts as already gone', async () => {
    const {client, transport} = setup([transportError('ECONNRESET', false), text(404, 'no such builder')]);
    await expect(client.teardownBuilder('b')).resolves.toEqual({alreadyGone: true});
    expect(transport.requests).toHaveLength(2);
  });

  test('gives up after maxAttempts (default 4) and says so', async () => {
    const {client, transport, clock} = setup([text(503, 'a'), text(503, 'b'), text(503, 'c'), text(503, 'd')]);
    const e = await apiError(client.getBuilderDetails('b'));
    expect(transport.requests).toHaveLength(4);
    expect(clock.sleeps).toHaveLength(3);
    expect(e.status).toBe(503);
    expect(e.bodyExcerpt).toBe('d');
    expect(e.hint).toBe('the service failed; try again later; gave up after 4 attempts');
  });

  test('getBuilderDetails({retry: false}) makes one attempt', async () => {
    const {client, transport} = setup([text(503, 'x'), ok(DETAILS_BODY)]);
    const e = await apiError(client.getBuilderDetails('b', {retry: false}));
    expect(e.status).toBe(503);
    expect(e.hint).toBe('the service failed; try again later');
    expect(transport.requests).toHaveLength(1);
  });

  test.each([
    [1, 1],
    [2, 2],
    [6, 6]
  ])('%#. retry.maxAttempts %i makes %i attempts', async (maxAttempts, attempts) => {
    const steps = Array.from({length: 8}, () => text(500, 'x'));
    const {client, transport} = setup(steps, {retry: {maxAttempts}});
    await apiError(client.teardownBuilder('b'));
    expect(transport.requests).toHaveLength(attempts);
  });

  test('a transport error thrown as a plain error is retried for idempotent calls and kept as cause', async () => {
    const boom = Object.assign(new Error('socket hang up'), {code: 'ECONNRESET'});
    const {client, transport} = setup([() => Promise.reject(boom), () => Promise.reject(boom)], {
      retry: {maxAttempts: 2}
    });
    const e = await apiError(client.getBuilderDetails('b'));
    expect(transport.requests).toHaveLength(2);
    expect(e.code).toBe('ECONNRESET');
    expect(e.notSent).toBe(false);
    expect(e.cause).toBe(boom);
  });
});

describe('backoff', () => {
  test('full jitter: random × base·2^n, with a fixed random', async () => {
    const {client, clock} = setup([text(500, ''), text(500, ''), text(500, ''), ok('{}')]);
    await client.teardownBuilder('b');
    expect(clock.sleeps).toEqual([100, 200, 400]);
  });

  test('is capped at maxDelayMs', async () => {
    const steps = [...Array.from({length: 9}, () => text(502, '')), ok('{}')];
    const {client, clock} = setup(steps, {random: () => 0.999, retry: {maxAttempts: 10}});
    await client.teardownBuilder('b');
    expect(clock.sleeps).toEqual([199, 399, 799, 1598, 3196, 4995, 4995, 4995, 4995]);
  });

  test('stays within [0, ceiling) for random 0', async () => {
    const {client, clock} = setup([text(500, ''), text(500, ''), ok('{}')], {random: () => 0});
    await client.teardownBuilder('b');
    expect(clock.sleeps).toEqual([0, 0]);
  });

  test('honours custom base and cap', async () => {
    const steps = [...Array.from({length: 4}, () => text(500, '')), ok('{}')];
    const {client, clock} = setup(steps, {
      random: () => 0.5,
      retry: {maxAttempts: 5, baseDelayMs: 1000, maxDelayMs: 3000}
    });
    await client.teardownBuilder('b');
    expect(clock.sleeps).toEqual([500, 1000, 1500, 1500]);
  });

  test('honours Retry-After in seconds', async () => {
    const {client, clock} = setup([text(429, 'slow', {'retry-after': '3'}), ok(ASSIGN_BODY)]);
    await client.assignBuilder('p');
    expect(clock.sleeps).toEqual([3000]);
  });

  test('honours Retry-After as an HTTP-date', async () => {
    const clock = new FakeClock();
    const at = new Date(clock.t + 7000).toUTCString();
    const {client} = setup([text(503, 'later', {'retry-after': at}), ok(DETAILS_BODY)], {clock});
    await client.getBuilderDetails('b');
    expect(clock.sleeps).toEqual([7000]);
  });

  test('a Retry-After date in the past means no wait', async () => {
    const clock = new FakeClock();
    const at = new Date(clock.t - 60000).toUTCString();
    const {client} = setup([text(429, '', {'retry-after': at}), ok(DETAILS_BODY)], {clock});
    await client.getBuilderDetails('b');
    expect(clock.sleeps).toEqual([0]);
  });

  test('caps Retry-After at maxRetryAfterMs', async () => {
    const {client, clock} = setup([
      text(429, '', {'Retry-After': '3600'}),
      text(429, '', {'retry-after': '3600'}),
      ok('{}')
    ]);
    await client.teardownBuilder('b');
    expect(clock.sleeps).toEqual([30000, 30000]);
    const custom = setup([text(429, '', {'retry-after': '3600'}), ok('{}')], {retry: {maxRetryAfterMs: 2500}});
    await custom.client.teardownBuilder('b');
    expect(custom.clock.sleeps).toEqual([2500]);
  });

  test('an unparsable Retry-After falls back to backoff', async () => {
    const {client, clock} = setup([
      text(429, '', {'retry-after': 'soon'}),
      text(429, '', {'retry-after': '1.5'}),
      ok('{}')
    ]);
    await client.teardownBuilder('b');
    expect(clock.sleeps).toEqual([100, 200]);
  });
});

describe('abort', () => {
  test('aborting during backoff rejects with the signal reason and stops retrying', async () => {
    const controller = new AbortController();
    const reason = new Error('deadline passed');
    const {client, transport, clock} = setup([text(503, ''), ok(DETAILS_BODY)]);
    clock.onSleep = () => controller.abort(reason);
    await expect(client.getBuilderDetails('b', {signal: controller.signal})).rejects.toBe(reason);
    expect(transport.requests).toHaveLength(1);
    expect(clock.sleeps).toHaveLength(1);
  });

  test('an already aborted signal sends nothing', async () => {
    const reason = new Error('cancelled');
    const {client, transport} = setup([ok(ASSIGN_BODY)]);
    await expect(client.assignBuilder('p', {signal: AbortSignal.abort(reason)})).rejects.toBe(reason);
    expect(transport.requests).toHaveLength(0);
  });

  test('an abort while the request is in flight rejects with the reason, without retrying', async () => {
    const controller = new AbortController();
    const reason = new Error('stop');
    const {client, transport} = setup([
      () => {
        controller.abort(reason);
        throw transportError('EABORTED', false);
      },
      ok('{}')
    ]);
    await expect(client.teardownBuilder('b', {signal: controller.signal})).rejects.toBe(reason);
    expect(transport.requests).toHaveLength(1);
  });

  test('aborting between profile pages stops the listing', async () => {
    const controller = new AbortController();
    const page = Array.from({length: 2}, (_, i) => ({id: `p${i}`}));
    const {client, transport} = setup([
      () => {
        controller.abort(new Error('enough'));
        return json(200, page);
      },
      json(200, [])
    ]);
    await expect(client.listBuilderProfiles({perPage: 2, signal: controller.signal})).rejects.toThrow('enough');
    expect(transport.requests).toHaveLength(1);
  });
});

describe('errors', () => {
  test.each([
    ['assign', text(400, 'bad request'), 'Failed to assign builder: HTTP 400: bad request'],
    [
      'assign',
      json(401, {error: 'unauthorized'}),
      'Failed to assign builder: HTTP 401: unauthorized (check the token: it is missing, wrong or revoked)'
    ],
    [
      'details',
      text(403, 'forbidden'),
      'Failed to get builder details: HTTP 403: forbidden (the API key lacks the scopes this call needs)'
    ],
    [
      'assign',
      text(404, 'not found'),
      'Failed to assign builder: HTTP 404: not found (unknown builder profile "ci-large": check the profile name against the builder profiles in the web UI; or baseUrl (https://api.test) is not the service\'s API base, since a wrong path answers 404 too)'
    ],
    [
      'details',
      text(404, ''),
      'Failed to get builder details: HTTP 404 (the builder does not exist (already torn down or never assigned))'
    ],
    [
      'assign',
      text(500, 'oops'),
      'Failed to assign builder: HTTP 500: oops (the service failed; try again later; a builder may have been assigned and billed anyway: check the web UI and tear it down)'
    ],
    [
      'assign',
      text(502, '<html>\n  <b>Bad</b>\n</html>'),
      'Failed to assign builder: HTTP 502: <html> <b>Bad</b> </html> (the service failed; try again later; a builder may have been assigned and billed anyway: check the web UI and tear it down)'
    ],
    [
      'assign',
      {status: 301, headers: {location: 'https://api.test/v2/api/v1/builders/assign'}, body: ''},
      "Failed to assign builder: HTTP 301 (the answer redirects to https://api.test/v2/api/v1/builders/assign: redirects are not followed, so the API key is never sent elsewhere; set baseUrl to the service's API base (the address it points to, if you trust it))"
    ],
    [
      'details',
      {status: 307, headers: {}, body: ''},
      "Failed to get builder details: HTTP 307 (the answer is a redirect without a Location: redirects are not followed, so the API key is never sent elsewhere; set baseUrl to the service's API base)"
    ],
    [
      'teardown',
      text(401, ''),
      'Failed to tear down builder: HTTP 401 (check the token: it is missing, wrong or revoked)'
    ],
    [
      'profiles',
      text(403, ''),
      'Failed to list builder profiles: HTTP 403 (the API key lacks the scopes this call needs)'
    ],
    [
      'reset',
      text(404, ''),
      'Failed to reset builder profile cache: HTTP 404 (unknown builder profile id "prof-1": check it against listBuilderProfiles or the web UI)'
    ]
  ] as const)('%#. %s answered %j', async (call, response, message) => {
    const {client} = setup([response]);
    const e = await apiError(calls[call](client));
    expect(e.message).toBe(message);
    expect(e.status).toBe(response.status);
  });

  test('429 until the end says rate limited', async () => {
    const {client} = setup(Array.from({length: 4}, () => text(429, 'too many')));
    const e = await apiError(client.assignBuilder('p'));
    expect(e.message).toBe(
      'Failed to assign builder: HTTP 429: too many (rate limited by the service; try again later; gave up after 4 attempts)'
    );
  });

  test('a timeout names the time limit and carries code and notSent', async () => {
    const {client} = setup(
      Array.from({length: 4}, () => transportError('ETIMEDOUT', false)),
      {requestTimeoutMs: 2500}
    );
    const e = await apiError(client.getBuilderDetails('b'));
    expect(e.status).toBeUndefined();
    expect(e.code).toBe('ETIMEDOUT');
    expect(e.notSent).toBe(false);
    expect(e.message).toBe(
      'Failed to get builder details: ETIMEDOUT (no answer within 2500 ms; gave up after 4 attempts)'
    );
    expect(e.cause).toBeInstanceOf(Error);
  });

  test('an assign that may have reached the service warns about a billed builder', async () => {
    const {client} = setup([transportError('ETIMEDOUT', false)]);
    const e = await apiError(client.assignBuilder('p'));
    expect(e.message).toBe(
      'Failed to assign builder: ETIMEDOUT (no answer within 15000 ms; a builder may have been assigned and billed anyway: check the web UI and tear it down)'
    );
  });

  test('an unreachable service names the origin, never the token', async () => {
    const {client} = setup(
      Array.from({length: 4}, () => transportError('ECONNREFUSED', true)),
      {
        baseUrl: 'http://127.0.0.1:9/prefix'
      }
    );
    const e = await apiError(client.assignBuilder('p'));
    expect(e.notSent).toBe(true);
    expect(e.message).toBe(
      'Failed to assign builder: ECONNREFUSED (cannot reach http://127.0.0.1:9: check the API URL and the network; gave up after 4 attempts)'
    );
  });

  test('the body excerpt is collapsed and cut to 300 characters', async () => {
    const body = `error:\n\n   ${'x'.repeat(1000)}`;
    const {client} = setup([text(400, body)]);
    const e = await apiError(client.assignBuilder('p'));
    expect(e.bodyExcerpt).toHaveLength(300);
    expect(e.bodyExcerpt).toBe(`error: ${'x'.repeat(292)}…`);
  });

  test('the token is redacted from the excerpt, even when the cut falls inside it', async () => {
    const {client} = setup([text(401, `invalid key ${TOKEN}; again ${TOKEN}`)]);
    const e = await apiError(client.assignBuilder('p'));
    expect(e.message).not.toContain(TOKEN);
    expect(e.bodyExcerpt).toBe('invalid key ***; again ***');
    const inJson = setup([text(401, `{"error": {"code": "unauthorized", "message": "invalid key ${TOKEN}"}}`)]);
    expect((await apiError(inJson.client.assignBuilder('p'))).bodyExcerpt).toBe('invalid key ***');

    const long = setup([text(400, `${'y'.repeat(295)}${TOKEN}`)]);
    const e2 = await apiError(long.client.assignBuilder('p'));
    expect(e2.message).not.toContain(TOKEN.slice(0, 4));
    expect(e2.bodyExcerpt).toBe(`${'y'.repeat(295)}***`);
  });

  test('PEM blocks are redacted from the excerpt', async () => {
    const {client} = setup([text(500, DETAILS_BODY)], {retry: {maxAttempts: 1}});
    const e = await apiError(client.getBuilderDetails('b'));
    expect(e.message).not.toContain('SECRETKEYMATERIAL');
    expect(e.message).not.toContain('fakeCA');
    expect(e.bodyExcerpt).toContain('[redacted PEM]');
  });
});

describe("errors in the SDK's words", () => {
  const EMULATOR_404 = '{"error":{"code":"not_found","message":"no builder profile named \\"ci-large\\""}}';

  test("name the clients' options (token, baseUrl), and take the service's message, not its JSON", async () => {
    const {client} = setup([text(404, EMULATOR_404)]);
    expect((await apiError(client.assignBuilder('ci-large'))).message).toBe(
      'Failed to assign builder: HTTP 404: no builder profile named "ci-large" (unknown builder profile "ci-large": ' +
        "check the profile name against the builder profiles in the web UI; or baseUrl (https://api.test) is not the service's " +
        'API base, since a wrong path answers 404 too)'
    );
    const unauthorized = setup([text(401, '{"message":"API key revoked"}')]);
    expect((await apiError(unauthorized.client.teardownBuilder('b'))).message).toBe(
      'Failed to tear down builder: HTTP 401: API key revoked (check the token: it is missing, wrong or revoked)'
    );
    await expect(client.assignBuilder(' ')).rejects.toThrow(new InputError('the profile name', 'must not be empty'));
  });

  test("the actions' input names when they pass ACTION_INPUT_NAMES", async () => {
    const {client} = setup([text(404, EMULATOR_404)], {inputNames: ACTION_INPUT_NAMES});
    expect((await apiError(client.assignBuilder('ci-large'))).hint).toMatch(
      /^unknown builder profile "ci-large": check profile-name against .*; or api-url \(https:\/\/api\.test\)/
    );
  });
});

describe('assignBuilder responses', () => {
  test('keeps every instance and the fields it does not know', async () => {
    const {client} = setup([json(201, JSON.parse(ASSIGN_BODY))]);
    const res = await client.assignBuilder('ci-large');
    expect(res.builder_instances.map(b => b.id)).toEqual(['bld-amd64-7f3c', 'bld-arm64-91ab']);
    expect(res.builder_instances[0].arch).toBe('amd64');
    expect(res.request_id).toBe('req-42');
  });

  test.each([
    ['not JSON', '<html>oops</html>', 'the body is not JSON (17 bytes)'],
    ['an array', '[{"id":"a"}]', 'the body is not a JSON object'],
    ['no builder_instances', '{"builders":[]}', 'builder_instances is not an array'],
    ['an empty list', '{"builder_instances":[]}', 'builder_instances is empty'],
    [
      'a non-object entry',
      '{"builder_instances":["a"]}',
      'builder_instances[0] is "a": not a builder with a non-empty string id'
    ],
    [
      'an empty id',
      '{"builder_instances":[{"id":""}]}',
      'builder_instances[0] is {"id":""}: not a builder with a non-empty string id'
    ],
    [
      'a numeric id',
      '{"builder_instances":[{"id":7}]}',
      'builder_instances[0] is {"id":7}: not a builder with a non-empty string id'
    ],
    [
      'a blank id and null',
      '{"builder_instances":[{"id":" "},null]}',
      'builder_instances[0] is {"id":" "}, builder_instances[1] is null: not a builder with a non-empty string id'
    ]
  ])('%#. %s is an unexpected response', async (_name, body, reason) => {
    const {client, transport} = setup([{status: 200, headers: {}, body}]);
    const e = await apiError(client.assignBuilder('p'));
    expect(transport.requests).toHaveLength(1);
    expect(e.status).toBe(200);
    expect(e.hint).toBe(
      `unexpected response: ${reason}; a builder may have been assigned and billed anyway: check the web UI and tear it down`
    );
    expect(e.message).toContain('Failed to assign builder: HTTP 200');
  });
});

describe('assignBuilder: bad entries next to good ones', () => {
  test.each([
    ['an entry without id', '{"builder_instances":[{"id":"a"},{}]}', 'builder_instances[1] is {}', ['a']],
    ['an empty id', '{"builder_instances":[{"id":""},{"id":"b"}]}', 'builder_instances[0] is {"id":""}', ['b']],
    [
      'null and a number',
      '{"builder_instances":[{"id":"a"},null,3,{"id":"c"}]}',
      'builder_instances[1] is null, builder_instances[2] is 3',
      ['a', 'c']
    ]
  ])('%#. %s: refused, quoting the bad entry, with the good ids to tear down', async (_name, body, quoted, ids) => {
    const {client} = setup([{status: 200, headers: {}, body}]);
    const e = await apiError(client.assignBuilder('p'));
    expect(e).toBeInstanceOf(PartialAssignError);
    expect((e as PartialAssignError).assignedIds).toEqual(ids);
    expect(e.hint).toBe(
      `unexpected response: ${quoted}: not a builder with a non-empty string id; the well-formed entries (${ids.join(', ')}) were assigned and are billed until torn down`
    );
  });
});

describe('getBuilderDetails responses', () => {
  test('reads metadata and keeps extra fields', async () => {
    const {client} = setup([ok(DETAILS_BODY)]);
    const d = await client.getBuilderDetails('bld-amd64-7f3c');
    expect(d).toEqual(JSON.parse(DETAILS_BODY));
    expect(d.metadata.client_key).toContain('SECRETKEYMATERIAL');
    expect(d.region).toBe('eu-west-1');
  });

  test.each([
    ['no metadata', {id: 'b'}, {host: '', ca: '', client_cert: '', client_key: ''}],
    ['null metadata', {metadata: null}, {host: '', ca: '', client_cert: '', client_key: ''}],
    [
      'partial metadata',
      {metadata: {host: 'h:1', ca: 42, client_cert: null}},
      {host: 'h:1', ca: '', client_cert: '', client_key: ''}
    ]
  ])('%#. %s becomes empty strings', async (_name, body, metadata) => {
    const {client} = setup([json(200, body)]);
    const d = await client.getBuilderDetails('b');
    expect(d.metadata).toEqual(metadata);
  });

  test('normalises id, status and arch to strings or drops them', async () => {
    const {client} = setup([json(200, {id: 12, status: {phase: 'x'}, arch: 'arm64'})]);
    const d = await client.getBuilderDetails('12');
    expect(d.id).toBe('12');
    expect('status' in d).toBe(false);
    expect(d.arch).toBe('arm64');
  });

  test('a non-JSON body is an unexpected response that shows no part of the body', async () => {
    const cut = DETAILS_BODY.slice(0, DETAILS_BODY.indexOf('SECRETKEY') + 12);
    const {client} = setup([ok(cut)]);
    const e = await apiError(client.getBuilderDetails('b'));
    expect(e.status).toBe(200);
    expect(e.bodyExcerpt).toBeUndefined();
    expect(e.message).toBe(
      `Failed to get builder details: HTTP 200 (unexpected response: the body is not JSON (${Buffer.byteLength(cut)} bytes))`
    );
  });

  test.each(['[]', 'null', '"text"'])('%#. %s is an unexpected response', async body => {
    const {client} = setup([ok(body)]);
    const e = await apiError(client.getBuilderDetails('b'));
    expect(e.hint).toBe('unexpected response: the body is not a JSON object');
  });
});

describe('teardownBuilder', () => {
  test.each([
    [json(200, {status: 'terminating'}), false],
    [{status: 204, headers: {}, body: ''}, false],
    [text(202, 'not json at all'), false],
    [text(404, 'not found'), true],
    [text(410, 'gone'), true]
  ])('%#. answered %j resolves to alreadyGone=%s', async (response, alreadyGone) => {
    const {client} = setup([response]);
    await expect(client.teardownBuilder('b')).resolves.toEqual({alreadyGone});
  });
});

describe('resetBuilderProfileCache', () => {
  test.each([
    [json(200, {reset: true}), {reset: true}],
    [{status: 204, headers: {}, body: ''}, undefined],
    [text(200, 'ok'), 'ok']
  ])('%#. answered %j resolves to %j', async (response, value) => {
    const {client} = setup([response]);
    await expect(client.resetBuilderProfileCache('prof-1')).resolves.toEqual(value);
  });
});

describe('listBuilderProfiles', () => {
  const profiles = (from: number, n: number) =>
    Array.from({length: n}, (_, i) => ({id: `p${from + i}`, name: `n${from + i}`}));
  const queries = (t: FakeTransport) => t.requests.map(r => new URL(r.url).search);

  test.each([
    ['a bare array', (p: unknown[]) => p],
    ['builder_profiles', (p: unknown[]) => ({builder_profiles: p, total: 2})],
    ['profiles', (p: unknown[]) => ({profiles: p})],
    ['data', (p: unknown[]) => ({meta: {page: 1}, data: p})],
    ['items', (p: unknown[]) => ({items: p})],
    ['results', (p: unknown[]) => ({count: 2, results: p})],
    ['the first array-valued key', (p: unknown[]) => ({builder_profiles: null, profiles: 'x', data: p, items: []})]
  ])('%#. reads a page shaped as %s', async (_name, shape) => {
    const {client, transport} = setup([json(200, shape(profiles(1, 2)))]);
    await expect(client.listBuilderProfiles()).resolves.toEqual(profiles(1, 2));
    expect(queries(transport)).toEqual(['?page=1&per_page=100']);
  });

  test('turns numeric ids into strings and keeps other fields', async () => {
    const {client} = setup([
      json(200, [
        {id: 17, name: 'big', arch: ['amd64', 'arm64']},
        {id: 'x', name: 5}
      ])
    ]);
    await expect(client.listBuilderProfiles()).resolves.toEqual([
      {id: '17', name: 'big', arch: ['amd64', 'arm64']},
      {id: 'x'}
    ]);
  });

  test('follows pages until a short page', async () => {
    const {client, transport} = setup([
      json(200, profiles(1, 2)),
      json(200, {data: profiles(3, 2)}),
      json(200, profiles(5, 1))
    ]);
    const all = await client.listBuilderProfiles({perPage: 2});
    expect(all.map(p => p.id)).toEqual(['p1', 'p2', 'p3', 'p4', 'p5']);
    expect(queries(transport)).toEqual(['?page=1&per_page=2', '?page=2&per_page=2', '?page=3&per_page=2']);
  });

  test('pages by the per_page a service reports when it clamps the size asked for', async () => {
    const page = (from: number, n: number) => json(200, {builder_profiles: profiles(from, n), per_page: 2, total: 5});
    const {client, transport} = setup([page(1, 2), page(3, 2), page(5, 1)]);
    const all = await client.listBuilderProfiles({perPage: 10});
    expect(all.map(p => p.id)).toEqual(['p1', 'p2', 'p3', 'p4', 'p5']);
    expect(queries(transport)).toEqual(['?page=1&per_page=10', '?page=2&per_page=10', '?page=3&per_page=10']);
  });

  test('ignores a reported per_page that is larger than asked or not a positive integer', async () => {
    const {client, transport} = setup([
      json(200, {items: profiles(1, 2), per_page: 50}),
      json(200, {items: profiles(3, 2), per_page: '1'}),
      json(200, {items: profiles(5, 1), per_page: 0})
    ]);
    await expect(client.listBuilderProfiles({perPage: 2})).resolves.toHaveLength(5);
    expect(transport.requests).toHaveLength(3);
  });

  test('stops at an empty page', async () => {
    const {client, transport} = setup([json(200, profiles(1, 2)), json(200, [])]);
    await expect(client.listBuilderProfiles({perPage: 2})).resolves.toHaveLength(2);
    expect(transport.requests).toHaveLength(2);
  });

  test('an empty first page is no profiles', async () => {
    const {client} = setup([json(200, {builder_profiles: []})]);
    await expect(client.listBuilderProfiles()).resolves.toEqual([]);
  });

  test('stops with an error when a page repeats (page parameter ignored)', async () => {
    const {client, transport} = setup([json(200, profiles(1, 2)), json(200, profiles(1, 2)), json(200, [])]);
    const e = await apiError(client.listBuilderProfiles({perPage: 2}));
    expect(transport.requests).toHaveLength(2);
    expect(e.hint).toBe('unexpected response: page 2 repeats page 1 (is the page parameter ignored?); stopped');
  });

  test('stops with an error after 1000 full pages', async () => {
    const {client, transport} = setup([]);
    let n = 0;
    for (let i = 0; i < 1001; i++) transport.push(() => json(200, [{id: `p${n++}`}]));
    const e = await apiError(client.listBuilderProfiles({perPage: 1}));
    expect(transport.requests).toHaveLength(1000);
    expect(e.message).toBe(
      'Failed to list builder profiles: HTTP 200 (unexpected response: more than 1000 pages of 1 profiles; stopped)'
    );
  });

  test.each([
    [
      'no array',
      {total: 0},
      'no array of profiles (expected a JSON array or one of builder_profiles, profiles, data, items, results)'
    ],
    ['a profile without id', [{id: 'a'}, {name: 'b'}], 'profile [1] has no id'],
    ['a profile with an empty id', [{id: ''}], 'profile [0] has no id'],
    ['a non-object profile', ['a'], 'profile [0] is not an object']
  ])('%#. %s is an unexpected response', async (_name, body, reason) => {
    const {client} = setup([json(200, body)]);
    const e = await apiError(client.listBuilderProfiles());
    expect(e.hint).toBe(`unexpected response: ${reason}`);
  });

  test('a failing later page fails the listing', async () => {
    const {client} = setup([json(200, profiles(1, 2)), text(401, 'revoked')]);
    const e = await apiError(client.listBuilderProfiles({perPage: 2}));
    expect(e.status).toBe(401);
  });

  test.each([0, -1, 1.5, Number.NaN])('%#. rejects perPage %p', async perPage => {
    const {client, transport} = setup([]);
    await expect(client.listBuilderProfiles({perPage})).rejects.toThrow(RangeError);
    expect(transport.requests).toHaveLength(0);
  });
});
