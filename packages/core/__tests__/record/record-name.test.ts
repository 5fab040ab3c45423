import {describe, expect, test} from '@jest/globals';
import {buildName} from '../../src/record/record-name.js';

// Expected names as buildx's BuildName (util/history/name.go) gives them for the same attributes and local state.
describe('buildName', () => {
  // prettier-ignore
  test.each([
    [1, {'build-arg:BUILDKIT_BUILD_NAME': 'mine', target: 't'}, undefined, 'mine'],
    [2, {}, {LocalPath: '/home/runner/work/app/app', DockerfilePath: '/home/runner/work/app/app/Dockerfile'}, 'app'],
    [3, {target: 'release'}, {LocalPath: '/w/app', DockerfilePath: '/w/app/Dockerfile'}, 'app (release)'],
    [4, {}, {LocalPath: '/w/app', DockerfilePath: '/w/app/docker/prod.Dockerfile'}, 'app/docker/prod.Dockerfile'],
    [5, {}, {LocalPath: '/w/app', DockerfilePath: '/w/other/Dockerfile.dev'}, 'other/Dockerfile.dev'],
    [6, {context: 'https://github.com/octo/app.git#main'}, {LocalPath: 'https://github.com/octo/app.git#main'}, 'https://github.com/octo/app.git#main'],
    [7, {'vcs:localdir:context': 'sub', target: 'x'}, undefined, 'sub (x)'],
    [8, {filename: 'ci.Dockerfile'}, undefined, 'ci.Dockerfile'],
    [9, {'vcs:source': 'https://github.com/octo/app.git#v1:sub'}, undefined, 'https://github.com/octo/app.git#v1'],
    [10, {'input:context': 'not a git url'}, undefined, ''],
    [11, {}, {LocalPath: '-', DockerfilePath: '-'}, '']
  ])('[%d] %o %o -> %s', (_n, attrs, local, name) => {
    expect(buildName(attrs as Record<string, string>, local)).toBe(name);
  });
});
