import {describe, expect, test} from '@jest/globals';
import {
  buildkitSatisfies,
  buildkitSupportsAttestations,
  noDefaultAttestations
} from '../../src/docker/buildkit-support.js';

// BuildKit versions as `buildx inspect` reports them; docker's BuildKit.versionSatisfies decides with semver.
describe('buildkitSupportsAttestations (default provenance)', () => {
  // prettier-ignore
  test.each<[number, string[], string | undefined, boolean]>([
    [1, ['v0.11.0'], 'remote', true],
    [2, ['v0.13.2', 'v0.11.6'], 'remote', true],
    [3, ['v0.13.2', 'v0.10.6'], 'remote', false],
    [4, ['v0.13.0-rc1'], 'remote', false],
    [5, ['v0.11.0-rc3'], 'docker-container', false],
    [6, ['v0.12.5-moby'], 'docker', true],
    [7, ['24.0.7'], 'docker', false],
    [8, ['v0.10.0-moby'], 'docker', false],
    [9, [''], 'remote', false],
    [10, ['v0.17.3'], undefined, true]
  ])('[%d] %j (%s driver): %s', (_n, versions, driver, ok) => {
    expect(buildkitSupportsAttestations(versions.map(buildkit => (buildkit ? {buildkit} : {})), driver)).toBe(ok);
  });

  test('any range, every node', () => {
    expect(buildkitSatisfies([{buildkit: 'v0.13.1'}, {buildkit: 'v0.12.0'}], '>=0.12.0')).toBe(true);
    expect(buildkitSatisfies([{buildkit: 'v0.13.1'}, {buildkit: 'v0.12.0'}], '>=0.13.0')).toBe(false);
  });
});

describe('noDefaultAttestations', () => {
  test.each([
    [undefined, false],
    ['1', true],
    ['True', true],
    ['false', false],
    ['yes', false]
  ])('%s → %s', (v, on) => {
    expect(noDefaultAttestations(v === undefined ? {} : {BUILDX_NO_DEFAULT_ATTESTATIONS: v})).toBe(on);
  });
});
