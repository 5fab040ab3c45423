import {describe, expect, test} from '@jest/globals';
import {isMultiArch, type ArchFacts} from '../../src/billing/multi-arch.js';

describe('isMultiArch', () => {
  // prettier-ignore
  test.each<[string, ArchFacts, boolean | undefined]>([
    ['emulator multi-arch builder', {arch: 'amd64,arm64'}, true],
    ['order and spaces do not matter', {arch: 'arm64, amd64'}, true],
    ['list', {arch: ['amd64', 'arm64']}, true],
    ['aliases', {arch: 'x86_64 aarch64'}, true],
    ['one node of a two-node assignment (amd64)', {arch: 'amd64'}, false],
    ['one node of a two-node assignment (arm64)', {arch: 'arm64'}, false],
    ['two architectures, but not amd64 + arm64', {arch: 'amd64,386'}, false],
    ['platforms covering both', {platforms: ['linux/amd64', 'linux/arm64']}, true],
    ['platforms with a variant', {platforms: 'linux/amd64,linux/arm64/v8'}, true],
    ['platforms of one architecture', {platforms: ['linux/amd64', 'linux/amd64/v2']}, false],
    ['arch and platforms agree', {arch: 'amd64,arm64', platforms: ['linux/amd64', 'linux/arm64']}, true],
    ['arch and platforms disagree: unknown', {arch: 'amd64', platforms: ['linux/amd64', 'linux/arm64']}, undefined],
    ['nothing known', {}, undefined],
    ['empty arch', {arch: ''}, undefined],
    ['not text', {arch: 64}, undefined],
    ['a list with a non-string', {arch: ['amd64', 1]}, undefined]
  ])('[%#] %s', (_why, facts, expected) => {
    expect(isMultiArch(facts)).toBe(expected);
  });
});
