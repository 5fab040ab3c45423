import {describe, expect, test} from '@jest/globals';
import {platformsFromArch, unionPlatforms} from '../../src/buildx/platforms.js';

describe('platformsFromArch', () => {
  // prettier-ignore
  test.each<[number, string | undefined, string[]]>([
    [1, undefined, []],
    [2, '', []],
    [3, '  ', []],
    [4, 'amd64', ['linux/amd64']],
    [5, 'arm64', ['linux/arm64']],
    [6, 'amd64,arm64', ['linux/amd64', 'linux/arm64']],
    [7, ' amd64 , arm64 ', ['linux/amd64', 'linux/arm64']],
    [8, 'amd64 arm64', ['linux/amd64', 'linux/arm64']],
    [9, 'linux/arm64', ['linux/arm64']],
    [10, 'linux/arm/v7,amd64', ['linux/arm/v7', 'linux/amd64']],
    [11, 'amd64,,arm64,', ['linux/amd64', 'linux/arm64']],
    [12, 'amd64\narm64', ['linux/amd64', 'linux/arm64']]
  ])('[%d] given %o returns %o', (_n, arch, expected) => {
    expect(platformsFromArch(arch)).toEqual(expected);
  });
});

describe('unionPlatforms', () => {
  // prettier-ignore
  test.each<[number, string[][], string[]]>([
    [1, [], []],
    [2, [[], []], []],
    [3, [['linux/amd64']], ['linux/amd64']],
    [4, [['linux/amd64'], ['linux/arm64']], ['linux/amd64', 'linux/arm64']],
    [5, [['linux/arm64'], ['linux/amd64', 'linux/arm64'], ['linux/amd64']], ['linux/arm64', 'linux/amd64']],
    [6, [['linux/amd64'], [], ['linux/amd64']], ['linux/amd64']]
  ])('[%d] given %o returns %o', (_n, lists, expected) => {
    expect(unionPlatforms(lists)).toEqual(expected);
  });
});
