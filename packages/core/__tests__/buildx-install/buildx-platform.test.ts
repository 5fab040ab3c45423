import {describe, expect, test} from '@jest/globals';
import {BuildxInstallError} from '../../src/buildx-install/buildx-install-error.js';
import {buildxAssetName, buildxPlatform, buildxPluginName} from '../../src/buildx-install/buildx-platform.js';
import {parseChecksums} from '../../src/buildx-install/checksums.js';

describe('buildxPlatform', () => {
  // prettier-ignore
  test.each([
    ['linux', 'x64', undefined, 'buildx-v0.19.3.linux-amd64', 'docker-buildx'],
    ['linux', 'arm64', undefined, 'buildx-v0.19.3.linux-arm64', 'docker-buildx'],
    ['linux', 'arm', '6', 'buildx-v0.19.3.linux-arm-v6', 'docker-buildx'],
    ['linux', 'arm', '7', 'buildx-v0.19.3.linux-arm-v7', 'docker-buildx'],
    ['linux', 'ppc64', undefined, 'buildx-v0.19.3.linux-ppc64le', 'docker-buildx'],
    ['linux', 's390x', undefined, 'buildx-v0.19.3.linux-s390x', 'docker-buildx'],
    ['linux', 'riscv64', undefined, 'buildx-v0.19.3.linux-riscv64', 'docker-buildx'],
    ['darwin', 'arm64', undefined, 'buildx-v0.19.3.darwin-arm64', 'docker-buildx'],
    ['win32', 'x64', undefined, 'buildx-v0.19.3.windows-amd64.exe', 'docker-buildx.exe'],
    ['win32', 'arm64', undefined, 'buildx-v0.19.3.windows-arm64.exe', 'docker-buildx.exe'],
    ['freebsd', 'x64', undefined, 'buildx-v0.19.3.freebsd-amd64', 'docker-buildx']
  ])('%s/%s (arm v%s) → %s, plugin %s', (platform, arch, armVersion, asset, plugin) => {
    const p = buildxPlatform({platform: platform as NodeJS.Platform, arch, ...(armVersion ? {armVersion} : {})});
    expect(buildxAssetName('0.19.3', p)).toBe(asset);
    expect(buildxPluginName(p)).toBe(plugin);
  });

  test.each([
    ['aix', 'ppc64'],
    ['sunos', 'x64'],
    ['linux', 'ia32'],
    ['linux', 'mips']
  ])('%s/%s has no buildx release: a platform error naming both and the way out', (platform, arch) => {
    let err: unknown;
    try {
      buildxPlatform({platform: platform as NodeJS.Platform, arch});
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(BuildxInstallError);
    expect((err as BuildxInstallError).failure).toBe('platform');
    expect((err as Error).message).toContain(`(${platform}/${arch})`);
    expect((err as Error).message).toContain("leave buildx-version empty to use the runner's buildx");
  });

  test('defaults to this process', () => {
    const p = buildxPlatform();
    expect(buildxAssetName('1.2.3', p)).toMatch(
      new RegExp(`^buildx-v1\\.2\\.3\\.${process.platform === 'win32' ? 'windows' : process.platform}-`)
    );
  });
});

describe('parseChecksums', () => {
  const a = 'a'.repeat(64);
  const b = 'B'.repeat(64);
  test('reads binary (`*name`) and text (`  name`) lines, lower-cases digests, skips the rest', () => {
    const sums = parseChecksums(
      `${a} *buildx-v0.19.3.linux-amd64\r\n${b}  buildx-v0.19.3.windows-amd64.exe\n\nnot a line\nabc *short\n`
    );
    expect([...sums]).toEqual([
      ['buildx-v0.19.3.linux-amd64', a],
      ['buildx-v0.19.3.windows-amd64.exe', 'b'.repeat(64)]
    ]);
  });
});
