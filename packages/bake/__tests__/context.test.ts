import {describe, expect, test} from '@jest/globals';
import {GitHubContext} from '@remote-builder-actions/core';
import {getInputs, resolveSource} from '../src/context.js';

const ENV: NodeJS.ProcessEnv = {
  GITHUB_REPOSITORY: 'o/r',
  GITHUB_REF: 'refs/heads/main',
  GITHUB_SHA: 'ffac537e6cbbf934b08745a378932722df287a53',
  REMOTE_BUILDER_API_URL: 'https://api.example.test',
  REMOTE_BUILDER_API_KEY: 'test-key'
};
const GIT = 'https://github.com/o/r.git#ffac537e6cbbf934b08745a378932722df287a53';

const io = (inputs: Record<string, string>, env: NodeJS.ProcessEnv = ENV) => ({
  getInput: (n: string) => (inputs[n] ?? '').trim(),
  env
});

describe('getInputs', () => {
  test("defaults: docker v6's (Git context source, workdir '.'), our timeout", () => {
    expect(getInputs(io({'profile-name': 'p'}))).toEqual({
      builder: '',
      workdir: '.',
      source: GIT,
      allow: [],
      call: '',
      files: [],
      'no-cache': false,
      pull: false,
      load: false,
      provenance: '',
      push: false,
      sbom: '',
      set: [],
      targets: [],
      'github-token': '',
      'profile-name': ['p'],
      'api-url': 'https://api.example.test',
      timeout: 600000,
      fallback: 'none',
      retries: 1,
      credentials: {token: 'test-key', source: 'env'},
      'buildx-version': {kind: 'runner'}
    });
  });

  test('lists split as docker splits them: set on lines only and quotes kept, the others on commas too', () => {
    const got = getInputs(
      io({
        'profile-name': 'p',
        set: '*.output=type=image,"name=a,b",push=true\n*.platform=linux/amd64,linux/arm64',
        targets: 'web,api\n"worker"',
        files: './a.hcl\n./b.hcl',
        allow: 'network.host,security.insecure'
      })
    );
    expect(got.set).toEqual(['*.output=type=image,"name=a,b",push=true', '*.platform=linux/amd64,linux/arm64']);
    expect(got.targets).toEqual(['web', 'api', 'worker']);
    expect(got.files).toEqual(['./a.hcl', './b.hcl']);
    expect(got.allow).toEqual(['network.host', 'security.insecure']);
  });

  test('builder set: no profile, API URL or key needed', () => {
    const got = getInputs(io({builder: 'shared'}, {GITHUB_REPOSITORY: 'o/r', GITHUB_REF: 'refs/heads/main'}));
    expect(got['profile-name']).toEqual([]);
    expect(got['api-url']).toBe('');
    expect(got.credentials).toBeUndefined();
  });

  // prettier-ignore
  test.each([
    [1, {push: 'yes'}, /Input "push": "yes" is not a boolean/],
    [2, {load: '1'}, /Input "load"/],
    [3, {'no-cache': 'nope'}, /Input "no-cache"/],
    [4, {'profile-name': ''}, /Input "profile-name": is required/],
    [5, {timeout: '10 minutes'}, /Input "timeout"/],
    [6, {'api-url': 'http://api.example.test'}, /Input "api-url".*plain http/],
    [7, {workdir: './no/such/dir'}, /Input "workdir": ".\/no\/such\/dir" is not a directory/],
    [8, {files: 'https://github.com/a/b.git#main'}, /Input "files": only one remote bake definition can be used/],
    [9, {source: 'https://github.com/a/b.git', files: 'git@github.com:c/d.git'}, /only one remote bake definition/]
  ])('[%d] rejects %o before anything is assigned', (_n, override, message) => {
    expect(() => getInputs(io({'profile-name': 'p', ...override}))).toThrow(message);
  });

  test('no default Git context outside a workflow run: source is required', () => {
    expect(() =>
      getInputs(io({'profile-name': 'p'}, {REMOTE_BUILDER_API_URL: 'https://a.test', REMOTE_BUILDER_API_KEY: 'k'}))
    ).toThrow(/Input "source": is required outside a workflow run.*set it to "\."/);
    expect(
      getInputs(
        io({'profile-name': 'p', source: '.'}, {REMOTE_BUILDER_API_URL: 'https://a.test', REMOTE_BUILDER_API_KEY: 'k'})
      ).source
    ).toBe('');
  });
});

describe('resolveSource (docker v6 getSourceInput)', () => {
  const github = new GitHubContext(ENV);
  // prettier-ignore
  test.each([
    [1, '', GIT],
    [2, '.', ''],
    [3, '{{defaultContext}}', GIT],
    [4, '{{defaultContext}}:docker', `${GIT}:docker`],
    [5, 'https://github.com/other/repo.git#v1', 'https://github.com/other/repo.git#v1'],
    [6, './sub', './sub']
  ])('[%d] %o → %o', (_n, raw, expected) => {
    expect(resolveSource(raw, github)).toBe(expected);
  });
});
