import {describe, expect, test} from '@jest/globals';
import {
  validateCreateRunner,
  validateCreateRunnerImage,
  validateRunnerName,
  validateUpdateRunner,
  validateUpdateRunnerImage
} from '../../src/api/runner-validation.js';
import {InputError} from '../../src/errors.js';

function inputError(fn: () => void): InputError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(InputError);
    return e as InputError;
  }
  throw new Error('expected an InputError');
}

const valid = () => ({
  name: 'linux-builders',
  provider_id: 'stk_1',
  pool_size: 0,
  labels: ['a'],
  configuration: {
    image: 'img_1',
    capacity_type: 'ondemand',
    sku: '',
    storage: {tier: 'custom', size: 100, throughput: 125, iops: 3000, disk_type: '', performance_tier: ''},
    byoc_sku: {instance_types: ['m5.large'], is_public: false, arch: 'x64', role_arn: '', network_tier: ''}
  }
});
type Body = ReturnType<typeof valid> & Record<string, unknown>;

describe('runner names', () => {
  test.each(['a', 'web', 'linux-builders', '-edge-', 'a--b'])('%#. "%s" is valid', name => {
    expect(() => validateRunnerName(name)).not.toThrow();
  });
  test.each(['', 'Web', 'web1', 'web_runner', 'web runner', 'wéb', 'web.x'])('%#. "%s" is not', name => {
    const e = inputError(() => validateRunnerName(name));
    expect(e.input).toBe('name');
    expect(e.message).toMatch(/lowercase letters and hyphens/);
  });
});

describe('validateCreateRunner', () => {
  test('a complete body passes, and so does role_arn ""', () => {
    expect(() => validateCreateRunner(valid())).not.toThrow();
  });

  test.each<[number, (b: Body) => void, string]>([
    [1, b => delete (b as Partial<Body>).name, 'name'],
    [2, b => (b.name = 'Web'), 'name'],
    [3, b => delete (b as Partial<Body>).provider_id, 'provider_id'],
    [4, b => (b.provider_id = ' '), 'provider_id'],
    [5, b => (b.pool_size = -1), 'pool_size'],
    [6, b => (b.pool_size = 1.5), 'pool_size'],
    [7, b => (b.labels = ['']), 'labels[0]'],
    [8, b => (b.labels = 'a' as never), 'labels'],
    [9, b => delete (b as Partial<Body>).configuration, 'configuration'],
    [10, b => (b.configuration.image = ''), 'configuration.image'],
    [11, b => delete (b.configuration as Partial<Body['configuration']>).byoc_sku, 'configuration.byoc_sku'],
    [12, b => delete (b.configuration.byoc_sku as {role_arn?: string}).role_arn, 'configuration.byoc_sku.role_arn'],
    [13, b => (b.configuration.byoc_sku.role_arn = 7 as never), 'configuration.byoc_sku.role_arn'],
    [
      14,
      b => delete (b.configuration.byoc_sku as {instance_types?: string[]}).instance_types,
      'configuration.byoc_sku.instance_types'
    ],
    [15, b => (b.configuration.byoc_sku.instance_types = []), 'configuration.byoc_sku.instance_types'],
    [16, b => (b.configuration.byoc_sku.instance_types = ['m5', ' ']), 'configuration.byoc_sku.instance_types[1]'],
    [17, b => (b.configuration.byoc_sku.is_public = 'no' as never), 'configuration.byoc_sku.is_public'],
    [18, b => (b.configuration.storage.size = Number.NaN), 'configuration.storage.size'],
    [19, b => (b.configuration.storage.tier = 1 as never), 'configuration.storage.tier'],
    [20, b => (b.configuration.capacity_type = null as never), 'configuration.capacity_type']
  ])('%d: names the bad field %s', (_n, mutate, field) => {
    const body = valid() as Body;
    mutate(body);
    const e = inputError(() => validateCreateRunner(body));
    expect(e.input).toBe(field);
    expect(e.message).toContain(`"${field}"`);
  });

  test('refuses a body that is not an object', () => {
    expect(inputError(() => validateCreateRunner([])).input).toBe('runner');
  });
});

describe('validateUpdateRunner', () => {
  test.each<[number, unknown]>([
    [1, {}],
    [2, {pool_size: 3}],
    [3, {labels: []}],
    [4, {configuration: {image: 'img_2', byoc_sku: {instance_types: ['c5.large'], network_tier: 'STANDARD'}}}]
  ])('%d: accepts a valid update', (_n, body) => {
    expect(() => validateUpdateRunner(body)).not.toThrow();
  });

  test.each<[number, unknown, string]>([
    [1, {configuration: {byoc_sku: {role_arn: 'x'}}}, 'configuration.byoc_sku.role_arn'],
    [2, {configuration: {byoc_sku: {role_arn: ''}}}, 'configuration.byoc_sku.role_arn'],
    [3, {role_arn: 'x'}, 'role_arn'],
    [4, {name: 'other'}, 'name'],
    [5, {provider_id: 'stk_2'}, 'provider_id'],
    [6, {configuration: {image: ''}}, 'configuration.image'],
    [7, {configuration: {byoc_sku: {instance_types: []}}}, 'configuration.byoc_sku.instance_types'],
    [8, {pool_size: '3'}, 'pool_size']
  ])('%d: refuses %j', (_n, body, field) => {
    expect(inputError(() => validateUpdateRunner(body)).input).toBe(field);
  });
});

describe('runner images', () => {
  test('create: types are checked, alias must not be empty', () => {
    expect(() => validateCreateRunnerImage({})).not.toThrow();
    expect(inputError(() => validateCreateRunnerImage({alias: ''})).input).toBe('alias');
    expect(inputError(() => validateCreateRunnerImage({alias: 'a', os: 1})).input).toBe('os');
    expect(inputError(() => validateCreateRunnerImage({stack_id: ''})).input).toBe('stack_id');
    expect(inputError(() => validateCreateRunnerImage({service_image: {image_uri: 3}})).input).toBe(
      'service_image.image_uri'
    );
    expect(inputError(() => validateCreateRunnerImage({settings: {purge_image_versions_offset: -2}})).input).toBe(
      'settings.purge_image_versions_offset'
    );
  });

  test('update: the id must match and the parts are type-checked', () => {
    expect(() => validateUpdateRunnerImage('img_1', {id: 'img_1', byoc_ami: {ami_id: 'ami-1'}})).not.toThrow();
    expect(inputError(() => validateUpdateRunnerImage('img_1', {id: 'img_2'})).input).toBe('id');
    expect(inputError(() => validateUpdateRunnerImage('img_1', {byoc_ami: 'x'})).input).toBe('byoc_ami');
  });
});
