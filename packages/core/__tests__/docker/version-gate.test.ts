import {describe, expect, test} from '@jest/globals';
import {Buildx} from '../../src/buildx/buildx.js';
import {versionAtLeast, versionSatisfies} from '../../src/docker/version-gate.js';
import {FakeExec} from '../fakes/fake-exec.js';

describe('versionSatisfies (docker’s Buildx.versionSatisfies)', () => {
  // docker's own cases (actions-toolkit __tests__/buildx/buildx.test.ts), then ours.
  // prettier-ignore
  test.each<[number, string, string, boolean]>([
    [1, '0.4.1', '>=0.3.2', true],
    [2, 'bda4882a65349ca359216b135896bddc1d92461c', '>0.1.0', false],
    [3, 'f117971', '>0.6.0', true],
    [4, 'f117971', '<0.15.0', true],
    [5, 'v0.13.1', '>=0.12.0', true],
    [6, '0.13.0-rc1', '>=0.12.0', false],
    [7, '0.12.0', '>=0.12.0', true],
    [8, 'unknown', '>=0.4.2', false]
  ])('[%d] %s satisfies %s: %s', (_n, version, range, ok) => {
    expect(versionSatisfies(version, range)).toBe(ok);
  });
});

/**
 * From a real `docker buildx version` line to the gates build-push and bake apply (metadata-file ≥ 0.6.0,
 * attestations ≥ 0.10.0, annotations ≥ 0.12.0, call ≥ 0.15.0), as docker's actions decide them.
 */
describe('version gates from real `docker buildx version` output', () => {
  const GATES = ['0.6.0', '0.10.0', '0.12.0', '0.15.0'];
  // prettier-ignore
  test.each<[number, string, boolean[]]>([
    [1, 'github.com/docker/buildx v0.13.1 788433953af10f2a698f5c07611dddce2e08c7a0', [true, true, true, false]],
    [2, 'github.com/docker/buildx 1a2b3c4 1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b', [true, true, true, true]],
    [3, 'github.com/docker/buildx v0.17.1-desktop.1 8ca58b1c0c9a2a0c5bd2a4da1a1ab3ab4fe2f21e', [true, true, true, true]],
    [4, 'github.com/docker/buildx v0.9.1 ed00243a0ce2a0aee75311b06e32d33b44729689', [true, false, false, false]],
    [5, 'github.com/docker/buildx 0.12.1+ds1-0ubuntu1~22.04.1 ', [true, true, true, false]],
    [6, 'github.com/docker/buildx v0.5.1-docker 11057da37336192bfc57d81e02359ba7ba848e4a', [false, false, false, false]]
  ])('[%d] %s', async (_n, stdout, gates) => {
    const version = await new Buildx({exec: new FakeExec(() => ({stdout}))}).version();
    expect(GATES.map(min => versionAtLeast(version, min))).toEqual(gates);
  });
});
