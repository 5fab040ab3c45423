// The runner, runner-image and stack endpoints of the emulator over loopback HTTP.
import {afterAll, beforeAll, beforeEach, describe, expect, test} from '@jest/globals';
import {Emulator} from '../src/emulator.js';
import {ManualClock} from '../src/clock.js';
import {call, KEY} from './support.js';

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const T0 = Date.UTC(2026, 2, 1, 9, 30, 0, 250);

let emu: Emulator;
let clock: ManualClock;

beforeAll(async () => {
  clock = new ManualClock({now: T0});
  emu = await Emulator.start({
    profiles: [{name: 'p'}],
    clock,
    apiKeys: [
      {key: KEY, scopes: ['ci', 'cache', 'builders']},
      {key: 'ci-only', scopes: ['ci']},
      {key: 'cache-only', scopes: ['cache']},
      {key: 'builders-only', scopes: ['builders']},
      {key: 'ci-cache', scopes: ['ci', 'cache']},
      {key: 'star', scopes: ['*']}
    ],
    stacks: [
      {id: 'stk_east', kind: 'ec2', name: 'east', region: 'us-east-1'},
      {id: 'stk_west', kind: 'ec2', name: 'west'},
      {id: 'stk_gcp', kind: 'gce', name: 'gcp'}
    ],
    stockRunners: [{name: 'ubuntu-large'}]
  });
});
afterAll(async () => {
  await emu?.close();
});

let seq = 0;
/** A unique lowercase name (letters and hyphens only). */
function uniqueName(prefix: string): string {
  seq += 1;
  return `${prefix}-${String.fromCharCode(97 + (seq % 26))}${'x'.repeat(Math.floor(seq / 26) + 1)}`;
}

async function createImage(overrides: Record<string, unknown> = {}) {
  const res = await call(emu, 'POST', '/api/v1/runner-images', {
    body: {
      alias: uniqueName('img'),
      os: 'linux',
      arch: 'x64',
      stack_id: 'stk_east',
      type: 'byoc_ami',
      service_image: {image_uri: 'ami://base', cloud_init_template: ''},
      settings: {purge_image_versions_offset: 3},
      byoc_ami: {ami_id: 'ami-0123', root_device_name: '/dev/sda1'},
      ...overrides
    }
  });
  if (res.status !== 201) throw new Error(`create image: ${res.status} ${res.text}`);
  return res.json as {id: string; alias: string};
}

function runnerBody(image: string, overrides: Record<string, unknown> = {}) {
  return {
    name: uniqueName('runner'),
    provider_id: 'stk_east',
    pool_size: 2,
    configuration: {
      image,
      capacity_type: 'ondemand',
      sku: '',
      storage: {tier: 'custom', size: 200, throughput: 250, iops: 4000, disk_type: 'gp3', performance_tier: ''},
      byoc_sku: {
        instance_types: ['m5.large', 'm5.xlarge'],
        is_public: false,
        arch: 'x64',
        role_arn: 'arn:aws:iam::1:role/runner',
        network_tier: 'STANDARD'
      }
    },
    ...overrides
  };
}

async function createRunner(image: string, overrides: Record<string, unknown> = {}) {
  const res = await call(emu, 'POST', '/api/v1/runners', {body: runnerBody(image, overrides)});
  if (res.status !== 201) throw new Error(`create runner: ${res.status} ${res.text}`);
  return res.json as {id: string; name: string};
}

describe('scopes (spec §5.3: ci AND cache)', () => {
  const paths: [string, string][] = [
    ['GET', '/api/v1/stacks'],
    ['GET', '/api/v1/runner-images'],
    ['POST', '/api/v1/runner-images'],
    ['PUT', '/api/v1/runner-images/img_x'],
    ['GET', '/api/v1/runners'],
    ['POST', '/api/v1/runners'],
    ['GET', '/api/v1/runners/rnr_x'],
    ['PATCH', '/api/v1/runners/rnr_x'],
    ['DELETE', '/api/v1/runners/rnr_x']
  ];
  test.each(paths)('%s %s: 401 without a key, 403 without both scopes', async (method, path) => {
    const body = method === 'GET' || method === 'DELETE' ? undefined : {};
    const none = await call(emu, method, path, {key: null, body});
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect((await call(emu, method, path, {key: 'unknown', body})).status).toBe(401);
    for (const key of ['ci-only', 'cache-only', 'builders-only']) {
      const res = await call(emu, method, path, {key, body});
      expect(res.status).toBe(403);
      expect(res.json.error.code).toBe('forbidden');
    }
  });

  test.each([
    ['ci-only', 'API key lacks the "cache" scope'],
    ['cache-only', 'API key lacks the "ci" scope'],
    ['builders-only', 'API key lacks the "ci" and "cache" scopes']
  ])('%#. 403 message for %s names the missing scopes', async (key, message) => {
    const res = await call(emu, 'GET', '/api/v1/stacks', {key});
    expect(res.json).toEqual({error: {code: 'forbidden', message}});
  });

  test.each(['ci-cache', 'star', KEY])('%#. key %s may list stacks', async key => {
    expect((await call(emu, 'GET', '/api/v1/stacks', {key})).status).toBe(200);
  });

  test('a ci+cache key cannot assign builders', async () => {
    const res = await call(emu, 'POST', '/api/v1/builders/assign', {key: 'ci-cache', body: {profile_name: 'p'}});
    expect(res.status).toBe(403);
  });
});

describe('stacks', () => {
  test('lists every stack under "stacks", or those of one kind', async () => {
    const all = await call(emu, 'GET', '/api/v1/stacks');
    expect(all.json).toEqual({
      stacks: [
        {id: 'stk_east', kind: 'ec2', name: 'east', region: 'us-east-1'},
        {id: 'stk_west', kind: 'ec2', name: 'west'},
        {id: 'stk_gcp', kind: 'gce', name: 'gcp'}
      ]
    });
    const ec2 = await call(emu, 'GET', '/api/v1/stacks?kind=ec2');
    expect(ec2.json.stacks.map((s: {id: string}) => s.id)).toEqual(['stk_east', 'stk_west']);
    expect((await call(emu, 'GET', '/api/v1/stacks?kind=nope')).json).toEqual({stacks: []});
  });

  test('the default is one ec2 stack', async () => {
    const other = await Emulator.start({profiles: [{name: 'p'}]});
    try {
      expect(other.stacks()).toEqual([{id: 'stk_ec2_default', kind: 'ec2', name: 'default'}]);
    } finally {
      await other.close();
    }
  });

  test.each([
    [[{kind: ''}], /"kind"/],
    [[{kind: 'ec2', id: 'a/b'}], /"id"/],
    [
      [
        {kind: 'ec2', id: 'x'},
        {kind: 'gce', id: 'x'}
      ],
      /Duplicate stack id/
    ]
  ])('%#. refuses bad stack configs', async (stacks, message) => {
    await expect(Emulator.start({profiles: [{name: 'p'}], stacks})).rejects.toThrow(message);
  });
});

describe('runner images', () => {
  test('create answers 201 with the record, defaults filled in', async () => {
    const res = await call(emu, 'POST', '/api/v1/runner-images', {
      body: {alias: 'minimal', stack_id: 'stk_west', type: 'custom'}
    });
    expect(res.status).toBe(201);
    expect(res.json).toEqual({
      id: expect.stringMatching(/^img_[0-9a-f]{16}$/),
      alias: 'minimal',
      os: 'linux',
      arch: 'x64',
      stack_id: 'stk_west',
      type: 'custom',
      service_image: {image_uri: '', cloud_init_template: ''},
      settings: {purge_image_versions_offset: 0},
      byoc_ami: {ami_id: '', root_device_name: ''},
      created_at: new Date(T0).toISOString(),
      updated_at: new Date(T0).toISOString()
    });
    expect(emu.runnerImages().map(i => i.id)).toContain(res.json.id);
  });

  test.each<[string, unknown, number, string | undefined]>([
    ['not an object', [1], 400, undefined],
    ['no alias', {stack_id: 'stk_east', type: 'custom'}, 400, 'alias'],
    ['empty alias', {alias: ' ', stack_id: 'stk_east', type: 'custom'}, 400, 'alias'],
    ['no stack', {alias: 'a', type: 'custom'}, 400, 'stack_id'],
    ['unknown stack', {alias: 'a', stack_id: 'stk_nope', type: 'custom'}, 400, 'stack_id'],
    ['no type', {alias: 'a', stack_id: 'stk_east'}, 400, 'type'],
    ['os not a string', {alias: 'a', stack_id: 'stk_east', type: 'x', os: 1}, 400, 'os'],
    ['byoc_ami without ami', {alias: 'a', stack_id: 'stk_east', type: 'byoc_ami'}, 400, 'byoc_ami'],
    [
      'byoc_ami empty ami',
      {alias: 'a', stack_id: 'stk_east', type: 'byoc_ami', byoc_ami: {ami_id: ''}},
      400,
      'byoc_ami.ami_id'
    ],
    [
      'negative offset',
      {alias: 'a', stack_id: 'stk_east', type: 'x', settings: {purge_image_versions_offset: -1}},
      400,
      'settings.purge_image_versions_offset'
    ],
    [
      'service_image not an object',
      {alias: 'a', stack_id: 'stk_east', type: 'x', service_image: 'u'},
      400,
      'service_image'
    ]
  ])('%#. create refuses %s', async (_what, body, status, field) => {
    const res = await call(emu, 'POST', '/api/v1/runner-images', {body});
    expect(res.status).toBe(status);
    expect(res.json.error.field).toBe(field);
  });

  test('create needs a JSON content type and body', async () => {
    const wrongType = await call(emu, 'POST', '/api/v1/runner-images', {body: '{}', contentType: 'text/plain'});
    expect(wrongType.status).toBe(415);
    const notJson = await call(emu, 'POST', '/api/v1/runner-images', {body: '{'});
    expect(notJson.status).toBe(400);
  });

  test('an alias is unique within a stack', async () => {
    const a = await createImage({alias: 'dup-alias'});
    const again = await call(emu, 'POST', '/api/v1/runner-images', {
      body: {alias: 'dup-alias', stack_id: 'stk_east', type: 'custom'}
    });
    expect(again.status).toBe(409);
    expect(again.json.error.message).toContain(a.id);
    const otherStack = await call(emu, 'POST', '/api/v1/runner-images', {
      body: {alias: 'dup-alias', stack_id: 'stk_west', type: 'custom'}
    });
    expect(otherStack.status).toBe(201);
  });

  test('update merges settings and byoc_ami and moves updated_at', async () => {
    const img = await createImage();
    clock.advance(1500);
    const res = await call(emu, 'PUT', `/api/v1/runner-images/${img.id}`, {
      body: {id: img.id, settings: {purge_image_versions_offset: 7}, byoc_ami: {ami_id: 'ami-new'}}
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      id: img.id,
      settings: {purge_image_versions_offset: 7},
      byoc_ami: {ami_id: 'ami-new', root_device_name: '/dev/sda1'}
    });
    expect(res.json.updated_at).toMatch(ISO_MS);
    expect(Date.parse(res.json.updated_at) - Date.parse(res.json.created_at)).toBe(1500);
  });

  test.each<[string, unknown, number, string | undefined]>([
    ['another id', {id: 'img_other'}, 400, 'id'],
    ['alias', {alias: 'x'}, 400, 'alias'],
    ['a bad offset', {settings: {purge_image_versions_offset: 1.5}}, 400, 'settings.purge_image_versions_offset'],
    ['an empty ami of a byoc_ami image', {byoc_ami: {ami_id: ''}}, 400, 'byoc_ami.ami_id']
  ])('%#. update refuses %s', async (_what, body, status, field) => {
    const img = await createImage();
    const res = await call(emu, 'PUT', `/api/v1/runner-images/${img.id}`, {body});
    expect(res.status).toBe(status);
    expect(res.json.error.field).toBe(field);
  });

  test('update of an unknown image is 404', async () => {
    const res = await call(emu, 'PUT', '/api/v1/runner-images/img_nope', {body: {}});
    expect(res.status).toBe(404);
    expect(res.json.error.code).toBe('runner_image_not_found');
  });

  test('list filters by alias (substring, any case) and type, and pages', async () => {
    const other = await Emulator.start({profiles: [{name: 'p'}]});
    try {
      const make = (alias: string, type: string) =>
        call(other, 'POST', '/api/v1/runner-images', {
          body: {alias, stack_id: 'stk_ec2_default', type, byoc_ami: {ami_id: 'ami-1'}}
        });
      for (const a of ['web-one', 'web-two', 'db-one', 'WEB-three']) await make(a, 'byoc_ami');
      await make('web-custom', 'custom');
      const aliases = (r: {json: {runner_images: {alias: string}[]}}) => r.json.runner_images.map(i => i.alias);

      const all = await call(other, 'GET', '/api/v1/runner-images');
      expect(all.json).toMatchObject({page: 1, per_page: 20, total: 5});
      expect(aliases(all)).toEqual(['web-one', 'web-two', 'db-one', 'WEB-three', 'web-custom']);
      expect(aliases(await call(other, 'GET', '/api/v1/runner-images?alias=web&type=byoc_ami'))).toEqual([
        'web-one',
        'web-two',
        'WEB-three'
      ]);
      const page2 = await call(other, 'GET', '/api/v1/runner-images?type=byoc_ami&page=2&per_page=3');
      expect(page2.json).toMatchObject({page: 2, per_page: 3, total: 4});
      expect(aliases(page2)).toEqual(['WEB-three']);
      const clamped = await call(other, 'GET', '/api/v1/runner-images?per_page=1000');
      expect(clamped.json.per_page).toBe(100);
      for (const bad of ['page=0', 'per_page=x', 'page=-1']) {
        const res = await call(other, 'GET', `/api/v1/runner-images?${bad}`);
        expect(res.status).toBe(400);
      }
    } finally {
      await other.close();
    }
  });
});

describe('runners', () => {
  let image: string;
  beforeEach(async () => {
    image = (await createImage()).id;
  });

  test('create answers 201 with the full record (spec §2.3)', async () => {
    const body = runnerBody(image);
    const res = await call(emu, 'POST', '/api/v1/runners', {body});
    expect(res.status).toBe(201);
    expect(res.json).toEqual({
      id: expect.stringMatching(/^rnr_[0-9a-f]{16}$/),
      created_at: expect.stringMatching(ISO_MS),
      updated_at: expect.stringMatching(ISO_MS),
      name: body.name,
      vcs_integration_id: 'vcs_emulator',
      organization_id: 'org_emulator',
      provider_id: 'stk_east',
      stock_runner_id: null,
      labels: [body.name],
      active: true,
      pool_size: 2,
      meta: {supports_snapshot: false},
      configuration: body.configuration
    });
    expect(Object.keys(res.json)).toEqual([
      'id',
      'created_at',
      'updated_at',
      'name',
      'vcs_integration_id',
      'organization_id',
      'provider_id',
      'stock_runner_id',
      'labels',
      'active',
      'pool_size',
      'meta',
      'configuration'
    ]);
  });

  test('create with only the required fields fills in the rest', async () => {
    const res = await call(emu, 'POST', '/api/v1/runners', {
      body: {
        name: 'minimal-runner',
        provider_id: 'stk_west',
        configuration: {image, byoc_sku: {role_arn: '', instance_types: ['t3.small']}}
      }
    });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      labels: ['minimal-runner'],
      pool_size: 1,
      active: true,
      configuration: {
        image,
        capacity_type: 'ondemand',
        sku: '',
        storage: {tier: 'custom', size: 100, throughput: 125, iops: 3000, disk_type: '', performance_tier: ''},
        byoc_sku: {instance_types: ['t3.small'], is_public: false, arch: 'x64', role_arn: '', network_tier: 'STANDARD'}
      }
    });
  });

  test('labels given on create are kept', async () => {
    const r = await createRunner(image, {labels: ['gpu', 'big']});
    expect((await call(emu, 'GET', `/api/v1/runners/${r.id}`)).json.labels).toEqual(['gpu', 'big']);
  });

  const sku = {role_arn: 'arn', instance_types: ['m5.large']};
  test.each<[string, Record<string, unknown>, string]>([
    ['an upper-case name', {name: 'Web'}, 'name'],
    ['a name with digits', {name: 'web2'}, 'name'],
    ['a name with underscores', {name: 'web_runner'}, 'name'],
    ['no name', {name: undefined}, 'name'],
    ['no provider', {provider_id: undefined}, 'provider_id'],
    ['an unknown provider', {provider_id: 'stk_nope'}, 'provider_id'],
    ['a negative pool size', {pool_size: -1}, 'pool_size'],
    ['a fractional pool size', {pool_size: 1.5}, 'pool_size'],
    ['labels not a list', {labels: 'a'}, 'labels'],
    ['no configuration', {configuration: undefined}, 'configuration'],
    ['no image', {configuration: {byoc_sku: sku}}, 'configuration.image'],
    ['an unknown image', {configuration: {image: 'img_nope', byoc_sku: sku}}, 'configuration.image'],
    ['no byoc_sku', {configuration: {image: 'IMAGE'}}, 'configuration.byoc_sku'],
    [
      'no role_arn',
      {configuration: {image: 'IMAGE', byoc_sku: {instance_types: ['m5.large']}}},
      'configuration.byoc_sku.role_arn'
    ],
    [
      'no instance types',
      {configuration: {image: 'IMAGE', byoc_sku: {role_arn: 'a'}}},
      'configuration.byoc_sku.instance_types'
    ],
    [
      'empty instance types',
      {configuration: {image: 'IMAGE', byoc_sku: {role_arn: 'a', instance_types: []}}},
      'configuration.byoc_sku.instance_types'
    ],
    [
      'an empty instance type',
      {configuration: {image: 'IMAGE', byoc_sku: {role_arn: 'a', instance_types: ['']}}},
      'configuration.byoc_sku.instance_types'
    ],
    [
      'storage size not a number',
      {configuration: {image: 'IMAGE', byoc_sku: sku, storage: {size: '100'}}},
      'configuration.storage.size'
    ]
  ])('%#. create refuses %s with 400 naming the field', async (_what, overrides, field) => {
    const body = JSON.parse(JSON.stringify(runnerBody(image, overrides)).replace(/"IMAGE"/g, JSON.stringify(image)));
    const res = await call(emu, 'POST', '/api/v1/runners', {body});
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({code: 'invalid_field', field});
  });

  test('names are unique (409)', async () => {
    const first = await createRunner(image);
    const res = await call(emu, 'POST', '/api/v1/runners', {body: runnerBody(image, {name: first.name})});
    expect(res.status).toBe(409);
    expect(res.json.error.code).toBe('conflict');
  });

  test('get, and 404 for an unknown id', async () => {
    const r = await createRunner(image);
    const got = await call(emu, 'GET', `/api/v1/runners/${r.id}`);
    expect(got.status).toBe(200);
    expect(got.json).toEqual(r);
    const missing = await call(emu, 'GET', '/api/v1/runners/rnr_nope');
    expect(missing.status).toBe(404);
    expect(missing.json.error.code).toBe('runner_not_found');
  });

  test('list is a bare array; only_custom_runners and image filter it', async () => {
    const other = await createImage();
    const a = await createRunner(image);
    const b = await createRunner(other.id);
    const all = await call(emu, 'GET', '/api/v1/runners');
    expect(Array.isArray(all.json)).toBe(true);
    const names = (r: {json: {name: string}[]}) => r.json.map(x => x.name);
    expect(names(all)).toEqual(expect.arrayContaining(['ubuntu-large', a.name, b.name]));
    const stock = all.json.find((x: {name: string}) => x.name === 'ubuntu-large');
    expect(stock.stock_runner_id).toBe('stock_ubuntu-large');

    const custom = await call(emu, 'GET', '/api/v1/runners?only_custom_runners=true');
    expect(names(custom)).not.toContain('ubuntu-large');
    expect(custom.json.every((x: {stock_runner_id: unknown}) => x.stock_runner_id === null)).toBe(true);
    expect(names(await call(emu, 'GET', '/api/v1/runners?only_custom_runners=false'))).toContain('ubuntu-large');
    expect(names(await call(emu, 'GET', `/api/v1/runners?image=${other.id}`))).toEqual([b.name]);
    expect((await call(emu, 'GET', '/api/v1/runners?only_custom_runners=yes')).status).toBe(400);
  });

  test('update merges, keeps role_arn, moves updated_at', async () => {
    const r = await createRunner(image);
    const img2 = await createImage();
    clock.advance(2000);
    const res = await call(emu, 'PATCH', `/api/v1/runners/${r.id}`, {
      body: {
        pool_size: 5,
        labels: ['a', 'b'],
        configuration: {image: img2.id, storage: {size: 300}, byoc_sku: {instance_types: ['c5.large']}}
      }
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      id: r.id,
      pool_size: 5,
      labels: ['a', 'b'],
      configuration: {
        image: img2.id,
        storage: {size: 300, throughput: 250, iops: 4000},
        byoc_sku: {instance_types: ['c5.large'], role_arn: 'arn:aws:iam::1:role/runner'}
      }
    });
    expect(Date.parse(res.json.updated_at) - Date.parse(res.json.created_at)).toBe(2000);
  });

  test.each<[string, unknown, string]>([
    ['role_arn in byoc_sku', {configuration: {byoc_sku: {role_arn: 'x'}}}, 'configuration.byoc_sku.role_arn'],
    ['role_arn at the top', {role_arn: 'x'}, 'role_arn'],
    ['a new name', {name: 'other'}, 'name'],
    ['a new provider', {provider_id: 'stk_west'}, 'provider_id'],
    ['an unknown image', {configuration: {image: 'img_nope'}}, 'configuration.image'],
    [
      'empty instance types',
      {configuration: {byoc_sku: {instance_types: []}}},
      'configuration.byoc_sku.instance_types'
    ],
    ['a bad pool size', {pool_size: 'x'}, 'pool_size']
  ])('%#. update refuses %s', async (_what, body, field) => {
    const r = await createRunner(image);
    const res = await call(emu, 'PATCH', `/api/v1/runners/${r.id}`, {body});
    expect(res.status).toBe(400);
    expect(res.json.error.field).toBe(field);
  });

  test('delete answers the record, then the runner is gone', async () => {
    const r = await createRunner(image);
    const res = await call(emu, 'DELETE', `/api/v1/runners/${r.id}`);
    expect(res.status).toBe(200);
    expect(res.json.id).toBe(r.id);
    expect((await call(emu, 'GET', `/api/v1/runners/${r.id}`)).status).toBe(404);
    expect((await call(emu, 'DELETE', `/api/v1/runners/${r.id}`)).status).toBe(404);
    expect(emu.runners().map(x => x.id)).not.toContain(r.id);
  });

  test('stock runners cannot be changed', async () => {
    const stock = emu.runners().find(x => x.name === 'ubuntu-large')!;
    expect((await call(emu, 'PATCH', `/api/v1/runners/${stock.id}`, {body: {pool_size: 3}})).status).toBe(403);
    expect((await call(emu, 'DELETE', `/api/v1/runners/${stock.id}`)).status).toBe(403);
  });

  test('wrong methods answer 405 with Allow', async () => {
    const res = await call(emu, 'PUT', '/api/v1/runners/rnr_x', {body: {}});
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, PATCH, DELETE');
  });

  test('requests are logged with their route and faults can target them', async () => {
    emu.reset();
    emu.addFault({route: 'create-runner', status: 503, times: 1});
    const res = await call(emu, 'POST', '/api/v1/runners', {body: runnerBody(image)});
    expect(res.status).toBe(503);
    await call(emu, 'GET', '/api/v1/stacks');
    expect(emu.requests().map(r => [r.route, r.status])).toEqual([
      ['create-runner', 503],
      ['list-stacks', 200]
    ]);
  });

  test('bad stock runner configs are refused', async () => {
    await expect(Emulator.start({profiles: [{name: 'p'}], stockRunners: [{name: 'Bad'}]})).rejects.toThrow(/lowercase/);
  });
});
