// Unit tests of the CiClient's stack, runner-image and runner calls, against a scripted transport.
import {describe, expect, test} from '@jest/globals';
import {BuildersClient} from '../../src/api/builders-client.js';
import {CiClient} from '../../src/api/ci-client.js';
import type {RequestEngineOpts} from '../../src/api/request-engine.js';
import type {CreateRunnerRequest} from '../../src/api/runner-types.js';
import {ApiError, InputError} from '../../src/errors.js';
import {USER_AGENT} from '../../src/version.js';
import {FakeClock, FakeTransport, json, RecordingLogger, text, transportError, type Step} from './fakes.js';

const TOKEN = 'rbk_ci_5ecret';
const BASE = 'https://api.test';

function setup(steps: Step[], opts: Partial<RequestEngineOpts> = {}) {
  const transport = new FakeTransport(...steps);
  const clock = new FakeClock();
  const logger = new RecordingLogger();
  const client = new CiClient({baseUrl: BASE, token: TOKEN, transport, clock, logger, random: () => 0.5, ...opts});
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

function runnerRequest(): CreateRunnerRequest {
  return {
    name: 'web-runners',
    provider_id: 'stk_1',
    pool_size: 2,
    configuration: {image: 'img_1', byoc_sku: {role_arn: 'arn:r', instance_types: ['m5.large']}}
  };
}

const RUNNER = {id: 'rnr_1', name: 'web-runners', labels: ['web-runners'], active: true, stock_runner_id: null};
const IMAGE = {id: 'img_1', alias: 'base'};

/** One call of each kind, its expected request, and a 200 body it can read. */
const calls = {
  stacks: {
    run: (c: CiClient) => c.listStacks({kind: 'ec2'}),
    method: 'GET',
    path: '/api/v1/stacks?kind=ec2',
    body: undefined,
    ok: {stacks: [{id: 'stk_1'}]},
    idempotent: true
  },
  images: {
    run: (c: CiClient) => c.listRunnerImages({alias: 'base', type: 'byoc_ami', page: 2, perPage: 50}),
    method: 'GET',
    path: '/api/v1/runner-images?alias=base&type=byoc_ami&page=2&per_page=50',
    body: undefined,
    ok: [IMAGE],
    idempotent: true
  },
  createImage: {
    run: (c: CiClient) => c.createRunnerImage({alias: 'base', stack_id: 'stk_1', type: 'byoc_ami'}),
    method: 'POST',
    path: '/api/v1/runner-images',
    body: '{"alias":"base","stack_id":"stk_1","type":"byoc_ami"}',
    ok: IMAGE,
    idempotent: false
  },
  updateImage: {
    run: (c: CiClient) => c.updateRunnerImage('img_1', {settings: {purge_image_versions_offset: 2}}),
    method: 'PUT',
    path: '/api/v1/runner-images/img_1',
    body: '{"settings":{"purge_image_versions_offset":2},"id":"img_1"}',
    ok: IMAGE,
    idempotent: true
  },
  runners: {
    run: (c: CiClient) => c.listRunners({onlyCustomRunners: true, image: 'img_1'}),
    method: 'GET',
    path: '/api/v1/runners?only_custom_runners=true&image=img_1',
    body: undefined,
    ok: [RUNNER],
    idempotent: true
  },
  getRunner: {
    run: (c: CiClient) => c.getRunner('rnr_1'),
    method: 'GET',
    path: '/api/v1/runners/rnr_1',
    body: undefined,
    ok: RUNNER,
    idempotent: true
  },
  createRunner: {
    run: (c: CiClient) => c.createRunner(runnerRequest()),
    method: 'POST',
    path: '/api/v1/runners',
    body: JSON.stringify(runnerRequest()),
    ok: RUNNER,
    idempotent: false
  },
  updateRunner: {
    run: (c: CiClient) => c.updateRunner('rnr_1', {pool_size: 4, labels: ['a']}),
    method: 'PATCH',
    path: '/api/v1/runners/rnr_1',
    body: '{"pool_size":4,"labels":["a"]}',
    ok: RUNNER,
    idempotent: false
  },
  deleteRunner: {
    run: (c: CiClient) => c.deleteRunner('rnr_1'),
    method: 'DELETE',
    path: '/api/v1/runners/rnr_1',
    body: undefined,
    ok: RUNNER,
    idempotent: true
  }
} as const;
type CallName = keyof typeof calls;
const names = Object.keys(calls) as CallName[];

describe('requests', () => {
  test.each(names)('%s sends the method, path, query, body and headers of spec §4', async name => {
    const c = calls[name];
    const {client, transport} = setup([json(200, c.ok)]);
    await c.run(client);
    expect(transport.requests).toHaveLength(1);
    const req = transport.requests[0];
    expect(req.method).toBe(c.method);
    expect(req.url).toBe(BASE + c.path);
    expect(req.body).toBe(c.body);
    const headers: Record<string, string> = {
      Accept: 'application/json',
      Authorization: `Bearer ${TOKEN}`,
      'User-Agent': USER_AGENT
    };
    if (c.body !== undefined) headers['Content-Type'] = 'application/json';
    expect(req.headers).toEqual(headers);
  });

  test('lists send no query when nothing is asked', async () => {
    const {client, transport} = setup([json(200, []), json(200, []), json(200, [])]);
    await client.listStacks();
    await client.listRunners();
    await client.listRunnerImages();
    expect(transport.requests.map(r => r.url)).toEqual([
      `${BASE}/api/v1/stacks`,
      `${BASE}/api/v1/runners`,
      `${BASE}/api/v1/runner-images`
    ]);
  });

  test('only_custom_runners=false is sent as such', async () => {
    const {client, transport} = setup([json(200, [])]);
    await client.listRunners({onlyCustomRunners: false});
    expect(transport.requests[0].url).toBe(`${BASE}/api/v1/runners?only_custom_runners=false`);
  });

  test('path params are encoded', async () => {
    const {client, transport} = setup([json(200, RUNNER), json(200, {})]);
    await client.getRunner('a/b c');
    await client.updateRunnerImage('i?d', {});
    expect(transport.requests.map(r => r.url)).toEqual([
      `${BASE}/api/v1/runners/a%2Fb%20c`,
      `${BASE}/api/v1/runner-images/i%3Fd`
    ]);
  });
});

describe('retries', () => {
  test.each(names)('%s: a 503 is retried', async name => {
    const c = calls[name];
    const {client, transport} = setup([text(503, 'busy'), json(200, c.ok)]);
    await c.run(client);
    expect(transport.requests).toHaveLength(2);
  });

  test.each(names)('%s: an unsent request is retried', async name => {
    const c = calls[name];
    const {client, transport} = setup([transportError('ECONNREFUSED', true), json(200, c.ok)]);
    await c.run(client);
    expect(transport.requests).toHaveLength(2);
  });

  test.each(names)('%s: a 500 and a lost answer are retried only when idempotent', async name => {
    const c = calls[name];
    const a = setup([text(500, 'oops'), json(200, c.ok)]);
    const b = setup([transportError('ECONNRESET', false), json(200, c.ok)]);
    if (c.idempotent) {
      await c.run(a.client);
      await c.run(b.client);
      expect(a.transport.requests).toHaveLength(2);
      expect(b.transport.requests).toHaveLength(2);
    } else {
      expect((await apiError(c.run(a.client))).status).toBe(500);
      expect((await apiError(c.run(b.client))).code).toBe('ECONNRESET');
      expect(a.transport.requests).toHaveLength(1);
      expect(b.transport.requests).toHaveLength(1);
    }
  });

  test.each([
    ['createRunner', /the runner may have been created anyway: look for "web-runners"/],
    ['createImage', /the image may have been created anyway/],
    ['updateRunner', /the update may have been applied anyway/]
  ] as const)('%s: an outcome in doubt says what to check', async (name, hint) => {
    const lost = setup([transportError('ECONNRESET', false)]);
    expect((await apiError(calls[name].run(lost.client))).hint).toMatch(hint);
    const failed = setup([text(502, 'bad gateway')]);
    expect((await apiError(calls[name].run(failed.client))).hint).toMatch(hint);
    const unsent = setup([transportError('ECONNREFUSED', true), transportError('ECONNREFUSED', true)], {
      retry: {maxAttempts: 2}
    });
    expect((await apiError(calls[name].run(unsent.client))).hint).not.toMatch(hint);
  });
});

describe('errors', () => {
  test.each(names)('%s: 401 and 403 hints name the ci and cache scopes', async name => {
    const c = calls[name];
    const {client} = setup([text(401, 'no'), text(403, 'no')]);
    const e401 = await apiError(c.run(client));
    expect(e401.hint).toMatch(/token.*both the "ci" and "cache" scopes/);
    const e403 = await apiError(c.run(client));
    expect(e403.hint).toMatch(/lacks the scopes this call needs: .*"ci" and "cache"/);
  });

  test('builder calls keep their hints without scope names', async () => {
    const client = new BuildersClient({baseUrl: BASE, token: TOKEN, transport: new FakeTransport(text(403, 'no'))});
    expect((await apiError(client.getBuilderDetails('b'))).hint).toBe('the API key lacks the scopes this call needs');
  });

  test('messages follow "Failed to <verb> <thing>: HTTP <status>: <body>" without the token', async () => {
    const {client} = setup([text(404, `no runner; token ${TOKEN}`)]);
    const e = await apiError(client.getRunner('rnr_9'));
    expect(e.message).toMatch(/^Failed to get runner: HTTP 404: no runner; token \S+ \(no runner "rnr_9"/);
    expect(e.message).not.toContain(TOKEN);
  });

  test.each<[string, string]>([
    ['createRunner', 'the body is not JSON'],
    ['getRunner', 'no runner with an id'],
    ['runners', 'no array of runners'],
    ['stacks', 'no array of stacks'],
    ['images', 'no array of runner images'],
    ['createImage', 'no runner image with an id']
  ])('%s: an unusable 2xx body is an "unexpected response"', async (name, reason) => {
    const body = name === 'createRunner' ? '<html>' : '{"nothing": true}';
    const {client} = setup([text(200, body)]);
    const e = await apiError(calls[name as CallName].run(client));
    expect(e.hint).toContain(`unexpected response: ${reason}`);
  });
});

describe('tolerant reads', () => {
  test('lists: a bare array or the first array under the known keys', async () => {
    const {client} = setup([
      json(200, [{id: 's1'}]),
      json(200, {data: [{id: 's2'}]}),
      json(200, {images: [{id: 'i1'}], page: 3, per_page: 5, total: 11}),
      json(200, {results: [{id: 'i2'}], total_count: 1}),
      json(200, {runners: [{id: 'r1'}]})
    ]);
    expect(await client.listStacks()).toEqual([{id: 's1'}]);
    expect(await client.listStacks()).toEqual([{id: 's2'}]);
    expect(await client.listRunnerImages()).toEqual({images: [{id: 'i1'}], page: 3, perPage: 5, total: 11});
    expect(await client.listRunnerImages()).toEqual({images: [{id: 'i2'}], total: 1});
    expect(await client.listRunners()).toEqual([{id: 'r1'}]);
  });

  test('records: numeric ids become strings, unknown fields pass through, wrong-typed named fields are dropped', async () => {
    const {client} = setup([
      json(200, {
        id: 42,
        name: 'web',
        labels: 'web',
        active: 'yes',
        stock_runner_id: null,
        future_field: {x: [1]},
        configuration: {image: 7, storage: {size: '100', iops: 3000, extra: true}, byoc_sku: 'x', other: 1}
      })
    ]);
    expect(await client.getRunner('42')).toEqual({
      id: '42',
      name: 'web',
      stock_runner_id: null,
      future_field: {x: [1]},
      configuration: {storage: {iops: 3000, extra: true}, other: 1}
    });
  });

  test('wrapped records are unwrapped', async () => {
    const {client} = setup([json(201, {runner: RUNNER}), json(201, {runner_image: {id: 'img_9', alias: 'a'}})]);
    expect((await client.createRunner(runnerRequest())).id).toBe('rnr_1');
    expect(await client.createRunnerImage({alias: 'a'})).toEqual({id: 'img_9', alias: 'a'});
  });

  test('a list item without an id makes the list unusable', async () => {
    const {client} = setup([json(200, [{id: 'r1'}, {name: 'no-id'}])]);
    expect((await apiError(client.listRunners())).hint).toContain('runner [1] is not an object with an id');
  });

  test.each<[string, string, Record<string, unknown>]>([
    ['an empty body', '', {id: 'img_1'}],
    ['text', 'updated', {id: 'img_1'}],
    ['an object without id', '{"status":"ok"}', {status: 'ok', id: 'img_1'}],
    ['the record', '{"id":"img_1","alias":"a"}', {id: 'img_1', alias: 'a'}]
  ])('%#. updateRunnerImage reads %s', async (_what, body, expected) => {
    const {client} = setup([text(200, body)]);
    expect(await client.updateRunnerImage('img_1', {})).toEqual(expected);
  });
});

describe('listAllRunnerImages', () => {
  const images = (from: number, n: number) => Array.from({length: n}, (_, i) => ({id: `img_${from + i}`}));

  test('pages until a short page', async () => {
    const {client, transport} = setup([json(200, images(0, 2)), json(200, images(2, 2)), json(200, images(4, 1))]);
    const all = await client.listAllRunnerImages({type: 'byoc_ami', perPage: 2});
    expect(all.map(i => i.id)).toEqual(['img_0', 'img_1', 'img_2', 'img_3', 'img_4']);
    expect(transport.requests.map(r => new URL(r.url).search)).toEqual([
      '?type=byoc_ami&page=1&per_page=2',
      '?type=byoc_ami&page=2&per_page=2',
      '?type=byoc_ami&page=3&per_page=2'
    ]);
  });

  test('stops at the total the service gives, and on an empty page', async () => {
    const a = setup([json(200, {runner_images: images(0, 2), total: 2})]);
    expect(await a.client.listAllRunnerImages({perPage: 2})).toHaveLength(2);
    const b = setup([json(200, images(0, 2)), json(200, [])]);
    expect(await b.client.listAllRunnerImages({perPage: 2})).toHaveLength(2);
  });

  test('pages by the size the service says it used', async () => {
    const {client, transport} = setup([
      json(200, {runner_images: images(0, 2), per_page: 2}),
      json(200, {runner_images: images(2, 1), per_page: 2})
    ]);
    expect(await client.listAllRunnerImages({perPage: 100})).toHaveLength(3);
    expect(transport.requests).toHaveLength(2);
  });

  test('a page repeating the previous one stops the listing', async () => {
    const {client} = setup([json(200, images(0, 2)), json(200, images(0, 2))]);
    const e = await apiError(client.listAllRunnerImages({perPage: 2}));
    expect(e.message).toMatch(/^Failed to list runner images: HTTP 200 \(unexpected response: page 2 repeats page 1/);
  });
});

describe('validation before sending', () => {
  test.each<[string, unknown, RegExp]>([
    ['page 0', () => ({page: 0}), /"page"/],
    ['per_page 1.5', () => ({perPage: 1.5}), /"per_page"/]
  ])('%#. listRunnerImages refuses %s', async (_what, query, message) => {
    const {client, transport} = setup([]);
    await expect(client.listRunnerImages((query as () => object)())).rejects.toThrow(message);
    expect(transport.requests).toHaveLength(0);
  });

  test('empty filters are refused', async () => {
    const {client, transport} = setup([]);
    await expect(client.listStacks({kind: ' '})).rejects.toThrow(InputError);
    await expect(client.listRunners({image: ''})).rejects.toThrow(InputError);
    await expect(client.getRunner('')).rejects.toThrow(TypeError);
    expect(transport.requests).toHaveLength(0);
  });
});
