import {describe, expect, test} from '@jest/globals';
import {storePlatform} from '../../src/buildx/store-platform.js';

describe('storePlatform', () => {
  // prettier-ignore
  test.each<[number, string, object | undefined]>([
    [1, 'linux/amd64', {architecture: 'amd64', os: 'linux'}],
    [2, 'linux/arm64', {architecture: 'arm64', os: 'linux'}],
    [3, 'linux/arm/v7', {architecture: 'arm', os: 'linux', variant: 'v7'}],
    [4, 'linux/arm/v6', {architecture: 'arm', os: 'linux', variant: 'v6'}],
    [5, 'linux/amd64/v3', {architecture: 'amd64', os: 'linux', variant: 'v3'}],
    [6, 'linux/riscv64', {architecture: 'riscv64', os: 'linux'}],
    [7, 'darwin/arm64', {architecture: 'arm64', os: 'darwin'}]
  ])('[%d] %s', (_n, spec, expected) => {
    expect(storePlatform(spec)).toEqual(expected);
  });

  // Forms buildx stores otherwise (Parse + Normalize: arm → arm/v7, arm64/v8 → arm64, amd64/v1 → amd64, aliases,
  // upper case, macos → darwin), differently across versions or hosts (windows), or not os/arch[/variant].
  // prettier-ignore
  const refused = [
    'linux/arm', 'linux/arm64/v8', 'linux/amd64/v1', 'linux/x86_64', 'linux/aarch64', 'Linux/amd64', 'macos/arm64',
    'windows/amd64', 'amd64', 'linux/amd64/v2/x', 'linux(5.1)/amd64', 'linux/arm64/v9', 'linux/riscv64/rva23u64'
  ];
  test.each(refused)('refuses %s', spec => {
    expect(storePlatform(spec)).toBeUndefined();
  });
});
