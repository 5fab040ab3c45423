import {describe, expect, test} from '@jest/globals';
import {
  builderArchitectures,
  defaultProfileId,
  ProfileCatalog,
  type ProfileConfig,
  resolveProfile
} from '../src/profiles.js';

describe('resolveProfile', () => {
  test('fills in the defaults', () => {
    expect(resolveProfile({name: 'p'})).toEqual({
      name: 'p',
      // `bp_` and the first 16 hex digits of sha256("p") (`printf p | sha256sum`).
      id: 'bp_148de9c5a7a44d19',
      architectures: ['amd64'],
      buildersPerAssignment: 1,
      size: '16x32',
      readyDelayMs: 0,
      hostFormat: 'bare',
      hostName: '127.0.0.1',
      front: 'keep-open',
      frontIdleMs: 200
    });
    expect(defaultProfileId('p')).toBe('bp_148de9c5a7a44d19');
  });

  test('keeps given values and orders architectures amd64 first without duplicates', () => {
    const p = resolveProfile({
      name: 'x',
      id: 'bp_custom',
      architectures: ['arm64', 'amd64', 'arm64'],
      size: '64x128',
      readyDelayMs: 5,
      hostFormat: 'tcp',
      buildersPerAssignment: 2,
      hostName: 'builder.remote-builder.test',
      front: 'close-idle',
      frontIdleMs: 50
    });
    expect(p).toMatchObject({
      id: 'bp_custom',
      architectures: ['amd64', 'arm64'],
      size: '64x128',
      hostFormat: 'tcp',
      hostName: 'builder.remote-builder.test',
      front: 'close-idle',
      frontIdleMs: 50
    });
  });

  test.each<[number, unknown, RegExp]>([
    [1, {name: ''}, /"name"/],
    [2, {name: 'a', architectures: []}, /architectures/],
    [3, {name: 'a', architectures: ['x86']}, /architectures/],
    [4, {name: 'a', buildersPerAssignment: 0}, /buildersPerAssignment/],
    [5, {name: 'a', size: '8x16'}, /size/],
    [6, {name: 'a', readyDelayMs: -1}, /readyDelayMs/],
    [7, {name: 'a', hostFormat: 'http'}, /hostFormat/],
    [8, {name: 'a', id: 'has/slash'}, /"id"/],
    [9, {name: 'a', hostName: ''}, /"hostName" must be a DNS name or an IPv4 address/],
    [10, {name: 'a', hostName: 'http://x'}, /"hostName"/],
    [11, {name: 'a', hostName: 'a..b'}, /"hostName"/],
    [12, {name: 'a', hostName: '-a.b'}, /"hostName"/],
    [13, {name: 'a', front: 'open'}, /"front" must be one of keep-open, close-after-handshake, .*never-answer/],
    [14, {name: 'a', frontIdleMs: 0}, /"frontIdleMs" must be a positive number/],
    [15, {name: 'a', frontIdleMs: Infinity}, /"frontIdleMs"/]
  ])('%d: rejects %j', (_n, config, message) => {
    expect(() => resolveProfile(config as ProfileConfig)).toThrow(message);
  });
});

describe('builderArchitectures', () => {
  test.each<[number, ProfileConfig, string[]]>([
    [1, {name: 'a'}, ['amd64']],
    [2, {name: 'a', architectures: ['arm64']}, ['arm64']],
    [3, {name: 'a', architectures: ['amd64', 'arm64']}, ['amd64,arm64']],
    [4, {name: 'a', architectures: ['amd64', 'arm64'], buildersPerAssignment: 2}, ['amd64', 'arm64']],
    [5, {name: 'a', architectures: ['amd64', 'arm64'], buildersPerAssignment: 3}, ['amd64', 'arm64', 'amd64']],
    [6, {name: 'a', buildersPerAssignment: 3}, ['amd64', 'amd64', 'amd64']]
  ])('%d: %j', (_n, config, expected) => {
    expect(builderArchitectures(resolveProfile(config))).toEqual(expected);
  });
});

describe('ProfileCatalog', () => {
  const catalog = new ProfileCatalog({profiles: Array.from({length: 5}, (_, i) => ({name: `p${i + 1}`}))});

  test('pages are 1-based and report the total', () => {
    const page = catalog.page(2, 2);
    expect(page.builder_profiles.map(p => p.name)).toEqual(['p3', 'p4']);
    expect(page).toMatchObject({page: 2, per_page: 2, total: 5});
    expect(catalog.page(3, 2).builder_profiles.map(p => p.name)).toEqual(['p5']);
    expect(catalog.page(4, 2).builder_profiles).toEqual([]);
  });

  test('per_page is clamped to 100', () => {
    expect(catalog.page(1, 1000).per_page).toBe(100);
  });

  test('finds by name and id and records cache resets', () => {
    const p = catalog.byName('p2');
    expect(p && catalog.byId(p.id)).toBe(p);
    catalog.resetCache(p!.id, 1234);
    expect(catalog.lastCacheReset(p!.id)).toBe(1234);
  });

  test('rejects duplicate names and ids', () => {
    expect(() => new ProfileCatalog({profiles: [{name: 'a'}, {name: 'a'}]})).toThrow(/Duplicate profile name/);
    expect(
      () =>
        new ProfileCatalog({
          profiles: [
            {name: 'a', id: 'x'},
            {name: 'b', id: 'x'}
          ]
        })
    ).toThrow(/Duplicate profile id/);
  });
});
