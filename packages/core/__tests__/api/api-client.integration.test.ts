// The ApiClient (a BuildersClient and a CiClient over one engine, as the CLI uses it) against the emulator over loopback HTTP.
import {afterAll, beforeAll, describe, expect, test} from '@jest/globals';
import {Emulator} from '@remote-builder-actions/emulator';
import {ApiClient} from '../../src/api/api-client.js';
import type {CreateRunnerRequest} from '../../src/api/runner-types.js';
import {ApiError, InputError} from '../../src/errors.js';
import {failure} from '../fakes/failure.js';

const KEY = 'rb_ci_key_0a1b2c';
const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

let emu: Emulator;
let client: ApiClient;

beforeAll(async () => {
  emu = await Emulator.start({
    profiles: [{name: 'small'}, {name: 'large', id: 'bp_large'}],
    apiKeys: [
      {key: KEY, scopes: ['ci', 'cache', 'builders']},
      {key: 'ci-only', scopes: ['ci']},
      {key: 'builders-only', scopes: ['builders']}
    ],
    stacks: [
      {id: 'stk_1', kind: 'ec2', name: 'main'},
      {id: 'stk_2', kind: 'gce', name: 'other'}
    ],
    stockRunners: [{name: 'stock-large'}]
  });
  client = new ApiClient({baseUrl: emu.url, token: KEY, retry: {baseDelayMs: 1, maxDelayMs: 2}});
});
afterAll(async () => {
  client?.close();
  await emu?.close();
});

function createRequest(image: string, name: string): CreateRunnerRequest {
  return {
    name,
    provider_id: 'stk_1',
    pool_size: 3,
    configuration: {
      image,
      capacity_type: 'ondemand',
      sku: '',
      storage: {tier: 'custom', size: 150, throughput: 125, iops: 3000, disk_type: '', performance_tier: ''},
      byoc_sku: {
        instance_types: ['m5.large'],
        is_public: false,
        arch: 'x64',
        role_arn: 'arn:aws:iam::1:role/r',
        network_tier: 'STANDARD'
      }
    }
  };
}

describe('stacks', () => {
  test('lists every stack, or one kind', async () => {
    expect(await client.ci.listStacks()).toEqual([
      {id: 'stk_1', kind: 'ec2', name: 'main'},
      {id: 'stk_2', kind: 'gce', name: 'other'}
    ]);
    expect((await client.ci.listStacks({kind: 'ec2'})).map(s => s.id)).toEqual(['stk_1']);
  });
});

describe('runner images', () => {
  test('create, list by alias and type, update', async () => {
    const created = await client.ci.createRunnerImage({
      alias: 'golden-image',
      os: 'linux',
      arch: 'x64',
      stack_id: 'stk_1',
      type: 'byoc_ami',
      service_image: {image_uri: 'ami://x', cloud_init_template: ''},
      settings: {purge_image_versions_offset: 2},
      byoc_ami: {ami_id: 'ami-1', root_device_name: '/dev/sda1'}
    });
    expect(created.id).toMatch(/^img_/);
    expect(created).toMatchObject({alias: 'golden-image', type: 'byoc_ami', created_at: expect.stringMatching(ISO_MS)});

    const page = await client.ci.listRunnerImages({alias: 'golden', type: 'byoc_ami', page: 1, perPage: 10});
    expect(page).toMatchObject({page: 1, perPage: 10, total: 1});
    expect(page.images.map(i => i.id)).toEqual([created.id]);

    const updated = await client.ci.updateRunnerImage(created.id, {
      settings: {purge_image_versions_offset: 9},
      byoc_ami: {ami_id: 'ami-2'}
    });
    expect(updated).toMatchObject({
      id: created.id,
      settings: {purge_image_versions_offset: 9},
      byoc_ami: {ami_id: 'ami-2', root_device_name: '/dev/sda1'}
    });
    expect(emu.runnerImages().find(i => i.id === created.id)?.byoc_ami.ami_id).toBe('ami-2');
  });

  test('listAllRunnerImages follows the pages', async () => {
    for (const n of ['one', 'two', 'three', 'four', 'five']) {
      await client.ci.createRunnerImage({alias: `paged-${n}`, stack_id: 'stk_2', type: 'custom'});
    }
    const all = await client.ci.listAllRunnerImages({alias: 'paged-', perPage: 2});
    expect(all.map(i => i.alias)).toEqual(['paged-one', 'paged-two', 'paged-three', 'paged-four', 'paged-five']);
    const paths = emu
      .requests()
      .filter(r => r.route === 'list-runner-images')
      .slice(-3);
    expect(paths).toHaveLength(3);
  });

  test('the emulator refuses what the client lets through: an unknown stack', async () => {
    const e = await failure(client.ci.createRunnerImage({alias: 'x', stack_id: 'stk_nope', type: 'custom'}), ApiError);
    expect(e.status).toBe(400);
    expect(e.message).toMatch(/^Failed to create runner image: HTTP 400: .*stack_id/);
  });

  test('the client refuses a bad body before sending', async () => {
    const before = emu.requests().length;
    await expect(client.ci.createRunnerImage({alias: '', stack_id: 'stk_1'})).rejects.toThrow(InputError);
    await expect(client.ci.updateRunnerImage('img_a', {id: 'img_b'})).rejects.toThrow(/"id"/);
    expect(emu.requests().length).toBe(before);
  });

  test('updating an unknown image is a 404 with a hint', async () => {
    const e = await failure(
      client.ci.updateRunnerImage('img_nope', {settings: {purge_image_versions_offset: 1}}),
      ApiError
    );
    expect(e.status).toBe(404);
    expect(e.hint).toMatch(/no runner image "img_nope"/);
  });
});

describe('runners', () => {
  let image: string;
  beforeAll(async () => {
    image = (await client.ci.createRunnerImage({alias: 'runner-base', stack_id: 'stk_1', type: 'custom'})).id;
  });

  test('create → get → list → update → delete', async () => {
    const created = await client.ci.createRunner(createRequest(image, 'ci-runner'));
    expect(created).toMatchObject({
      name: 'ci-runner',
      provider_id: 'stk_1',
      stock_runner_id: null,
      labels: ['ci-runner'],
      active: true,
      pool_size: 3,
      created_at: expect.stringMatching(ISO_MS),
      updated_at: expect.stringMatching(ISO_MS)
    });
    expect(await client.ci.getRunner(created.id)).toEqual(created);

    const all = await client.ci.listRunners();
    expect(all.map(r => r.name)).toEqual(expect.arrayContaining(['stock-large', 'ci-runner']));
    const custom = await client.ci.listRunners({onlyCustomRunners: true});
    expect(custom.map(r => r.name)).not.toContain('stock-large');
    expect((await client.ci.listRunners({onlyCustomRunners: false})).length).toBe(all.length);
    expect((await client.ci.listRunners({image})).map(r => r.id)).toEqual([created.id]);

    const updated = await client.ci.updateRunner(created.id, {
      pool_size: 6,
      labels: ['ci-runner', 'big'],
      configuration: {byoc_sku: {instance_types: ['m5.xlarge']}}
    });
    expect(updated).toMatchObject({
      pool_size: 6,
      labels: ['ci-runner', 'big'],
      configuration: {byoc_sku: {instance_types: ['m5.xlarge'], role_arn: 'arn:aws:iam::1:role/r'}}
    });

    const deleted = await client.ci.deleteRunner(created.id);
    expect(deleted.id).toBe(created.id);
    const gone = await failure(client.ci.getRunner(created.id), ApiError);
    expect(gone.status).toBe(404);
    expect(gone.message).toContain(`no runner "${created.id}"`);
  });

  test.each<[string, (r: CreateRunnerRequest) => void, string]>([
    ['an upper-case name', r => (r.name = 'CI'), 'name'],
    ['a name with a digit', r => (r.name = 'ci-2'), 'name'],
    ['no provider', r => (r.provider_id = ''), 'provider_id'],
    ['no image', r => (r.configuration.image = ''), 'configuration.image'],
    [
      'no role_arn',
      r => delete (r.configuration.byoc_sku as {role_arn?: string}).role_arn,
      'configuration.byoc_sku.role_arn'
    ],
    ['no instance types', r => (r.configuration.byoc_sku.instance_types = []), 'configuration.byoc_sku.instance_types'],
    [
      'an empty instance type',
      r => (r.configuration.byoc_sku.instance_types = ['']),
      'configuration.byoc_sku.instance_types[0]'
    ]
  ])('%#. createRunner refuses %s before sending', async (_what, mutate, field) => {
    const req = createRequest(image, 'never-sent');
    mutate(req);
    const before = emu.requests().length;
    const e = await client.ci.createRunner(req).then(
      () => undefined,
      (err: unknown) => err
    );
    expect(e).toBeInstanceOf(InputError);
    expect((e as InputError).input).toBe(field);
    expect(emu.requests().length).toBe(before);
  });

  test('updateRunner refuses role_arn before sending', async () => {
    const body = {configuration: {byoc_sku: {role_arn: 'x'}}} as never;
    await expect(client.ci.updateRunner('rnr_x', body)).rejects.toThrow(/role_arn/);
  });

  test('the emulator refuses what the client lets through: a duplicate name, an unknown image', async () => {
    await client.ci.createRunner(createRequest(image, 'twin'));
    const dup = await failure(client.ci.createRunner(createRequest(image, 'twin')), ApiError);
    expect(dup.status).toBe(409);
    const unknown = await failure(client.ci.createRunner(createRequest('img_nope', 'orphan')), ApiError);
    expect(unknown.status).toBe(400);
    expect(unknown.bodyExcerpt).toContain('configuration.image');
  });

  test('a 503 on create is retried (the service cannot have processed it)', async () => {
    emu.addFault({route: 'create-runner', status: 503, times: 1});
    const r = await client.ci.createRunner(createRequest(image, 'after-retry'));
    expect(r.name).toBe('after-retry');
    const creates = emu.requests().filter(x => x.route === 'create-runner');
    expect(creates.slice(-2).map(x => x.status)).toEqual([503, 201]);
  });

  test('a 500 on create is not retried, and says the runner may exist', async () => {
    emu.addFault({route: 'create-runner', status: 500, times: 1, processFirst: true});
    const e = await failure(client.ci.createRunner(createRequest(image, 'maybe-made')), ApiError);
    expect(e.status).toBe(500);
    expect(e.hint).toMatch(/may have been created anyway/);
    expect(emu.runners().some(r => r.name === 'maybe-made')).toBe(true);
  });

  test('a lost PATCH answer is not retried', async () => {
    const r = await client.ci.createRunner(createRequest(image, 'patched'));
    emu.addFault({route: 'update-runner', action: 'reset', times: 1, processFirst: true});
    const e = await failure(client.ci.updateRunner(r.id, {pool_size: 9}), ApiError);
    expect(e.status).toBeUndefined();
    expect(e.hint).toMatch(/may have been applied anyway/);
    expect(emu.requests().filter(x => x.path === `/api/v1/runners/${r.id}` && x.method === 'PATCH')).toHaveLength(1);
  });

  test('a lost DELETE answer is retried; the retry finds the runner gone', async () => {
    const r = await client.ci.createRunner(createRequest(image, 'deleted-twice'));
    emu.addFault({route: 'delete-runner', action: 'reset', times: 1, processFirst: true});
    const e = await failure(client.ci.deleteRunner(r.id), ApiError);
    expect(e.status).toBe(404);
    expect(e.hint).toMatch(/already deleted\?.*gave up after 2 attempts/);
  });
});

describe('scopes (spec §5.3)', () => {
  test.each([
    ['ci-only', 403, /lacks the scopes.*"ci" and "cache" scopes/],
    ['builders-only', 403, /"ci" and "cache"/],
    ['wrong-key', 401, /token.*"ci" and "cache"/]
  ])('%#. key %s: HTTP %d with a hint naming both scopes', async (token, status, hint) => {
    const c = new ApiClient({baseUrl: emu.url, token});
    try {
      for (const call of [() => c.ci.listStacks(), () => c.ci.listRunners(), () => c.ci.listRunnerImages()]) {
        const e = await failure(call(), ApiError);
        expect(e.status).toBe(status);
        expect(e.hint).toMatch(hint);
      }
    } finally {
      c.close();
    }
  });
});

describe('builder profiles', () => {
  test('list (every page) and cache reset', async () => {
    const profiles = await client.builders.listBuilderProfiles({perPage: 1});
    expect(profiles.map(p => p.name)).toEqual(['small', 'large']);
    expect(await client.builders.resetBuilderProfileCache('bp_large')).toMatchObject({id: 'bp_large'});
  });
});
