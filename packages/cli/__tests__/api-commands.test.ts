// profiles, runners, images and stacks commands against the emulator over loopback HTTP.
import {afterAll, beforeAll, describe, expect, test} from '@jest/globals';
import {rmSync} from 'node:fs';
import {Emulator} from '@remote-builder-actions/emulator';
import {profileArchitectures} from '../src/commands/profiles.js';
import {cli, sandbox, type Sandbox} from './helpers.js';

const KEY = 'rb_cli_key_9f8e7d';
let emu: Emulator;
let box: Sandbox;

beforeAll(async () => {
  emu = await Emulator.start({
    profiles: [
      {name: 'small', id: 'bp_small'},
      {name: 'large', architectures: ['amd64', 'arm64']},
      {name: 'bp_small', id: 'bp_clash'}
    ],
    apiKeys: [
      {key: KEY, scopes: ['ci', 'cache', 'builders']},
      {key: 'builders-only-key', scopes: ['builders']}
    ],
    stacks: [
      {id: 'stk_main', kind: 'ec2', name: 'main'},
      {id: 'stk_gcp', kind: 'gce', name: 'gcp'}
    ],
    stockRunners: [{name: 'stock-large'}]
  });
  box = sandbox(emu, KEY);
});
afterAll(async () => {
  await emu?.close();
  if (box) rmSync(box.dir, {recursive: true, force: true});
});

const run = (...argv: string[]) => cli(argv, box.env);
const json = async (...argv: string[]) => {
  const r = await run(...argv, '--json');
  expect(r.stderr.split('\n').filter(l => l.startsWith('error'))).toEqual([]);
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout);
};

describe('stacks list', () => {
  test('a table, JSON, and a kind filter', async () => {
    const table = await run('stacks', 'list');
    expect(table).toEqual({
      code: 0,
      stdout: 'ID        KIND  NAME\nstk_main  ec2   main\nstk_gcp   gce   gcp\n',
      stderr: ''
    });
    expect(await json('stacks', 'list', '--kind', 'gce')).toEqual([{id: 'stk_gcp', kind: 'gce', name: 'gcp'}]);
    const none = await run('stacks', 'list', '--kind', 'azure');
    expect(none).toEqual({code: 0, stdout: '', stderr: 'No stacks of kind "azure".\n'});
  });

  test('global options may come first', async () => {
    const r = await cli(['--api-url', emu.url, '--api-key', KEY, '--json', 'stacks', 'list'], {PATH: box.env.PATH});
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveLength(2);
  });

  test('a key without the ci and cache scopes: exit 1, the hint names them', async () => {
    const r = await cli(['stacks', 'list'], {...box.env, REMOTE_BUILDER_API_KEY: 'builders-only-key'});
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^remote-builder: error: Failed to list stacks: HTTP 403: .*"ci" and "cache" scopes/m);
  });
});

describe('profiles', () => {
  test('list: a table with the architectures, and JSON', async () => {
    const r = await run('profiles', 'list');
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe('ID                   NAME      ARCHITECTURES');
    expect(r.stdout).toContain('bp_small             small     amd64\n');
    expect(r.stdout).toMatch(/^bp_\w+ +large +amd64,arm64$/m);
    const all = await json('profiles', 'list');
    expect(all.map((p: {name: string}) => p.name)).toEqual(['small', 'large', 'bp_small']);
  });

  test.each<[number, Record<string, unknown>, string[] | undefined]>([
    [1, {architectures: ['amd64', 'arm64']}, ['amd64', 'arm64']],
    [2, {architectures: 'amd64, arm64'}, ['amd64', 'arm64']],
    [3, {arch: 'arm64'}, ['arm64']],
    [4, {platforms: ['linux/amd64']}, ['linux/amd64']],
    [5, {architectures: [], arch: 'amd64'}, ['amd64']],
    [6, {architectures: [7, null, ' ']}, undefined],
    [7, {architectures: {amd64: true}}, undefined],
    [8, {}, undefined]
  ])('%d: the architectures are read tolerantly from %j', (_n, fields, expected) => {
    expect(profileArchitectures({id: 'bp_1', ...fields})).toEqual(expected);
  });

  test("the service's words are quoted as they are: the builder lifecycle's rewording is not applied", async () => {
    const body = '{"error":"profile-name is not set on the runner"}';
    emu.addFault({route: 'profiles', status: 400, body, times: 1});
    const r = await run('profiles', 'list');
    expect(r.code).toBe(1);
    // The service's message, without the JSON around it.
    expect(r.stderr).toBe(
      'remote-builder: error: Failed to list builder profiles: HTTP 400: profile-name is not set on the runner\n'
    );
  });

  test('reset-cache by id (an id wins over a name), by name, and an unknown one', async () => {
    const byId = await run('profiles', 'reset-cache', 'bp_small');
    expect(byId).toEqual({code: 0, stdout: 'Reset the cache of builder profile "small" (bp_small).\n', stderr: ''});
    const byName = await json('profiles', 'reset-cache', 'large');
    expect(byName).toMatchObject({
      name: 'large',
      id: expect.stringMatching(/^bp_/),
      response: {cache_reset_at: expect.any(String)}
    });
    const unknown = await run('profiles', 'reset-cache', 'nope');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe(
      'remote-builder: error: No builder profile named or with id "nope": see "remote-builder profiles list"\n'
    );
    const resets = emu.requests().filter(x => x.route === 'cache-reset');
    expect(resets.map(x => x.path)).toEqual([
      '/api/v1/builder-profiles/bp_small/cache/reset',
      `/api/v1/builder-profiles/${byName.id}/cache/reset`
    ]);
  });
});

describe('images', () => {
  let imageId: string;

  test('create prints the record; --json prints it as JSON', async () => {
    const r = await run(
      'images',
      'create',
      '--alias',
      'golden',
      '--stack-id',
      'stk_main',
      '--os',
      'linux',
      '--arch',
      'x64',
      '--image-uri',
      'ami://golden',
      '--cloud-init-template',
      '',
      '--purge-image-versions-offset',
      '2',
      '--ami-id',
      'ami-0abc',
      '--root-device-name',
      '/dev/sda1'
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^Created runner image "golden" \(img_[0-9a-f]+\)\n$/);
    expect(r.stdout).toMatch(/^id {36}img_[0-9a-f]+\nalias {33}golden\n/);
    expect(r.stdout).toContain('service_image.cloud_init_template     ""\n');
    expect(r.stdout).toContain('settings.purge_image_versions_offset  2\n');
    imageId = /img_[0-9a-f]+/.exec(r.stdout)![0];
    const image = emu.runnerImages().find(i => i.id === imageId);
    expect(image).toMatchObject({type: 'byoc_ami', byoc_ami: {ami_id: 'ami-0abc', root_device_name: '/dev/sda1'}});

    const other = await json('images', 'create', '--alias', 'plain', '--stack-id', 'stk_gcp', '--type', 'custom');
    expect(other).toMatchObject({alias: 'plain', type: 'custom', stack_id: 'stk_gcp'});
  });

  test('create: the emulator refuses a byoc_ami image without --ami-id (exit 1)', async () => {
    const r = await run('images', 'create', '--alias', 'no-ami', '--stack-id', 'stk_main');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/HTTP 400: .*byoc_ami/);
  });

  test('list: every page by default, one page with --page, filters', async () => {
    for (const n of ['a', 'b', 'c']) {
      await run('images', 'create', '--alias', `paged-${n}`, '--stack-id', 'stk_gcp', '--type', 'custom');
    }
    const all = await json('images', 'list', '--alias', 'paged', '--per-page', '2');
    expect(all.map((i: {alias: string}) => i.alias)).toEqual(['paged-a', 'paged-b', 'paged-c']);
    const page = await run('images', 'list', '--alias', 'paged', '--per-page', '2', '--page', '2');
    expect(page.stdout.split('\n')[0]).toMatch(/^ID\s+ALIAS\s+TYPE\s+OS\s+ARCH\s+STACK$/);
    expect(page.stdout).toMatch(/paged-c\s+custom\s+linux\s+x64\s+stk_gcp\n$/);
    expect(page.stderr).toBe('Page 2: 1 of 3 images\n');
    expect(await json('images', 'list', '--type', 'byoc_ami')).toHaveLength(1);
    const none = await run('images', 'list', '--alias', 'zzz');
    expect(none).toEqual({code: 0, stdout: '', stderr: 'No runner images.\n'});
  });

  test('update: settings and machine image; an unknown id exits 1', async () => {
    const r = await json('images', 'update', imageId, '--purge-image-versions-offset', '5', '--ami-id', 'ami-0new');
    expect(r).toMatchObject({id: imageId, settings: {purge_image_versions_offset: 5}, byoc_ami: {ami_id: 'ami-0new'}});
    const put = emu
      .requests()
      .filter(x => x.route === 'update-runner-image')
      .pop();
    expect(put?.path).toBe(`/api/v1/runner-images/${imageId}`);
    const missing = await run('images', 'update', 'img_nope', '--ami-id', 'x');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^remote-builder: error: Failed to update runner image: HTTP 404/m);
  });

  test('a bad value for a field exits 2 naming the flag', async () => {
    const r = await run('images', 'create', '--alias', '', '--stack-id', 'stk_main');
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('remote-builder: error: --alias: must not be empty: the name of the image\n');
  });
});

describe('runners', () => {
  let image: string;
  let runnerId: string;
  beforeAll(async () => {
    image = (await json('images', 'create', '--alias', 'runner-base', '--stack-id', 'stk_main', '--ami-id', 'ami-1'))
      .id;
  });

  const create = (...extra: string[]) => [
    'runners',
    'create',
    '--provider-id',
    'stk_main',
    '--image',
    image,
    '--role-arn',
    'arn:aws:iam::1:role/ci',
    '--instance-types',
    'm5.large,m5.xlarge',
    ...extra
  ];

  test('create with every flag', async () => {
    const r = await json(
      ...create(
        '--name',
        'web-runners',
        '--pool-size',
        '3',
        '--labels',
        'web,linux',
        '--capacity-type',
        'ondemand',
        '--sku',
        'm5',
        '--storage-tier',
        'custom',
        '--storage-size',
        '200',
        '--storage-throughput',
        '250',
        '--storage-iops',
        '4000',
        '--storage-disk-type',
        'gp3',
        '--storage-performance-tier',
        'fast',
        '--arch',
        'x64',
        '--network-tier',
        'STANDARD',
        '--public'
      )
    );
    runnerId = r.id;
    expect(r).toMatchObject({
      name: 'web-runners',
      provider_id: 'stk_main',
      pool_size: 3,
      labels: ['web', 'linux'],
      stock_runner_id: null,
      active: true,
      configuration: {
        image,
        capacity_type: 'ondemand',
        sku: 'm5',
        storage: {tier: 'custom', size: 200, throughput: 250, iops: 4000, disk_type: 'gp3', performance_tier: 'fast'},
        byoc_sku: {
          instance_types: ['m5.large', 'm5.xlarge'],
          is_public: true,
          arch: 'x64',
          role_arn: 'arn:aws:iam::1:role/ci',
          network_tier: 'STANDARD'
        }
      }
    });
  });

  test('create with only the required flags prints the record', async () => {
    const r = await run(...create('--name', 'minimal'));
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^Created runner "minimal" \(rnr_[0-9a-f]+\)\n$/);
    expect(r.stdout).toContain('labels                                  minimal\n');
    expect(r.stdout).toContain('configuration.byoc_sku.role_arn         arn:aws:iam::1:role/ci\n');
  });

  test.each<[number, string[], string]>([
    [
      1,
      ['--name', 'Web'],
      'remote-builder: error: --name: "Web" is not a runner name: use lowercase letters and hyphens only, e.g. "linux-builders"\n'
    ],
    [
      2,
      ['--name', 'web', '--instance-types', ','],
      'remote-builder: error: --instance-types (configuration.byoc_sku.instance_types): must not be empty: list machine type names, e.g. ["m5.large"]\n'
    ],
    [
      3,
      ['--name', 'web', '--provider-id', ''],
      'remote-builder: error: --provider-id: must not be empty: the id of a stack (see the stacks listing)\n'
    ],
    [
      4,
      ['--name', 'web', '--image', ''],
      'remote-builder: error: --image (configuration.image): must not be empty: the id of a runner image\n'
    ]
  ])('%d: client-side validation exits 2 naming the flag', async (_n, extra, stderr) => {
    const before = emu.requests().length;
    const r = await run(...create(...extra));
    expect(r).toEqual({code: 2, stdout: '', stderr});
    expect(emu.requests().length).toBe(before);
  });

  test('the service refuses an existing name and an unknown image: exit 1', async () => {
    const dup = await run(...create('--name', 'web-runners'));
    expect(dup.code).toBe(1);
    expect(dup.stderr).toMatch(/Failed to create runner: HTTP 409/);
    const unknown = await run(
      'runners',
      'create',
      '--name',
      'orphan',
      '--provider-id',
      'stk_main',
      '--image',
      'img_x',
      '--role-arn',
      '',
      '--instance-types',
      't3'
    );
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/HTTP 400: .*configuration\.image/);
  });

  test('list: a table, filters and JSON', async () => {
    const table = await run('runners', 'list');
    expect(table.code).toBe(0);
    const lines = table.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^ID\s+NAME\s+ACTIVE\s+POOL\s+IMAGE\s+LABELS\s+STOCK\s+CREATED$/);
    expect(lines.find(l => l.includes('stock-large'))).toMatch(
      /^rnr_\w+\s+stock-large\s+true\s+1\s+-\s+stock-large\s+yes\s+\d{4}-/
    );
    expect(lines.find(l => l.includes('web-runners'))).toMatch(
      new RegExp(`^${runnerId}\\s+web-runners\\s+true\\s+3\\s+${image}\\s+web,linux\\s+no\\s+\\d{4}-`)
    );
    const custom = await json('runners', 'list', '--only-custom-runners');
    expect(custom.map((r: {name: string}) => r.name).sort()).toEqual(['minimal', 'web-runners']);
    const byImage = await json('runners', 'list', '--image', image);
    expect(byImage).toHaveLength(2);
    expect(emu.requests().filter(x => x.route === 'list-runners')).toHaveLength(3);
  });

  test('get: a record; an unknown id exits 1 with the fix', async () => {
    const r = await json('runners', 'get', runnerId);
    expect(r.id).toBe(runnerId);
    const missing = await run('runners', 'get', 'rnr_nope');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('(no runner "rnr_nope": check the id against the runners listing)');
  });

  test('update: changes the given fields only', async () => {
    const r = await json(
      'runners',
      'update',
      runnerId,
      '--pool-size',
      '6',
      '--labels',
      'web',
      '--instance-types',
      'c5.large',
      '--storage-size',
      '300',
      '--no-public'
    );
    expect(r).toMatchObject({
      pool_size: 6,
      labels: ['web'],
      configuration: {
        storage: {size: 300, iops: 4000},
        byoc_sku: {instance_types: ['c5.large'], is_public: false, role_arn: 'arn:aws:iam::1:role/ci'}
      }
    });
    const patch = emu.requests().filter(x => x.route === 'update-runner');
    expect(patch).toHaveLength(1);
  });

  test('delete: prints the record, the runner is gone', async () => {
    const r = await run('runners', 'delete', runnerId);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`Deleted runner "web-runners" (${runnerId})\n`);
    expect(r.stdout).toContain(`id  `);
    expect(emu.runners().some(x => x.id === runnerId)).toBe(false);
    const again = await run('runners', 'delete', runnerId);
    expect(again.code).toBe(1);
  });
});
