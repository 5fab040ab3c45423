import {describe, expect, test} from '@jest/globals';
import {InputError} from '../../src/errors.js';
import {parseBuildxVersion} from '../../src/buildx-install/buildx-version.js';

describe('parseBuildxVersion', () => {
  // prettier-ignore
  test.each([
    ['', {kind: 'runner'}],
    ['  ', {kind: 'runner'}],
    [undefined, {kind: 'runner'}],
    ['latest', {kind: 'latest'}],
    ['LATEST', {kind: 'latest'}],
    ['v0.19.3', {kind: 'release', version: '0.19.3'}],
    ['0.19.3', {kind: 'release', version: '0.19.3'}],
    [' v0.20.0-rc1 ', {kind: 'release', version: '0.20.0-rc1'}]
  ])('%j → %j', (input, want) => {
    expect(parseBuildxVersion(input)).toEqual(want);
  });

  test.each(['0.19', 'v0.19.x', 'master', 'https://github.com/docker/buildx.git#master', 'vv0.19.3', '0.19.3;rm'])(
    '%j is an InputError naming buildx-version and the accepted forms',
    input => {
      let err: unknown;
      try {
        parseBuildxVersion(input);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(InputError);
      expect((err as InputError).input).toBe('buildx-version');
      expect((err as Error).message).toContain(`"${input}" is not a buildx version`);
      expect((err as Error).message).toMatch(/"latest".*v0\.19\.3.*leave it empty/);
    }
  );
});
