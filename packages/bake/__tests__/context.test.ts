import {afterAll, describe, expect, test} from '@jest/globals';
import {mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {GitHubContext} from '@remote-builder-actions/core/step';
import {getInputs, inputWarnings, resolveSource} from '../src/context.js';

// A checkout with a sub/ folder and a file, for local sources.
const checkout = mkdtempSync(join(tmpdir(), 'bake-source-'));
mkdirSync(join(checkout, 'sub', 'deeper'), {recursive: true});
writeFileSync(join(checkout, 'file.hcl'), '');
afterAll(() => rmSync(checkout, {recursive: true, force: true}));

const ENV: NodeJS.ProcessEnv = {
  GITHUB_REPOSITORY: 'o/r',
  GITHUB_REF: 'refs/heads/main',
  GITHUB_SHA: 'ffac537e6cbbf934b08745a378932722df287a53',
  REMOTE_BUILDER_API_URL: 'https://api.example.test',
  REMOTE_BUILDER_API_KEY: 'test-key'
};

const io = (inputs: Record<string, string>, env: NodeJS.ProcessEnv = ENV) => ({
  getInput: (n: string) => (inputs[n] ?? '').trim(),
  env
});

describe('getInputs', () => {
  test("defaults: docker v7's (the Git context as source, bake in '.'), our timeout", () => {
    expect(getInputs(io({'profile-name': 'p'}))).toEqual({
      builder: '',
      source: {remoteRef: '', workdir: '.'},
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
    [7, {workdir: './no/such/dir'}, /Input "workdir": ".\/no\/such\/dir" does not exist or is not a directory/],
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
    ).toEqual({workdir: '.'});
  });
});

describe('resolveSource (docker v7.1.0 getBakeContext, and the deprecated workdir)', () => {
  const github = new GitHubContext(ENV);
  const at = (p: string): string => join(checkout, p);
  // prettier-ignore
  test.each([
    [1, '', '', {remoteRef: '', workdir: '.'}],
    [2, '.', '', {workdir: '.'}],
    [3, '{{defaultContext}}', '', {remoteRef: '{{defaultContext}}', workdir: '.'}],
    [4, '{{defaultContext}}:docker', '', {remoteRef: '{{defaultContext}}:docker', workdir: '.'}],
    [5, 'https://github.com/other/repo.git#v1', '', {remoteRef: 'https://github.com/other/repo.git#v1', workdir: '.'}],
    [6, 'git@github.com:other/repo.git', '', {remoteRef: 'git@github.com:other/repo.git', workdir: '.'}],
    // A local path is the directory bake runs in, with no positional argument (v7).
    [7, at('sub'), '', {workdir: at('sub')}],
    // v6's workdir: the directory a local source is taken from, and where bake runs with a remote one.
    [8, '.', at('sub'), {workdir: at('sub')}],
    [9, 'deeper', at('sub'), {workdir: join(at('sub'), 'deeper')}],
    [10, '', at('sub'), {remoteRef: '', workdir: at('sub')}]
  ])('[%d] source %j, workdir %j → %o', (_n, source, workdir, expected) => {
    expect(resolveSource(source, workdir, github)).toEqual(expected);
  });

  // prettier-ignore
  test.each([
    [1, at('missing'), '', /Input "source": ".*missing" does not exist or is not a directory: check the repository out first \(actions\/checkout\), or set "source" to the directory holding the bake files or to a remote Git or HTTP bake definition/],
    [2, at('file.hcl'), '', /Input "source": ".*file.hcl" does not exist or is not a directory/],
    [3, 'missing', at('sub'), /Input "source": ".*sub\/missing" does not exist or is not a directory/],
    [4, '', at('missing'), /Input "workdir": ".*missing" does not exist or is not a directory/]
  ])('[%d] source %j, workdir %j: InputError before anything is assigned', (_n, source, workdir, message) => {
    expect(() => resolveSource(source, workdir, github)).toThrow(message);
  });
});

describe('inputWarnings', () => {
  const github = new GitHubContext(ENV);
  const warn = (inputs: Record<string, string>) =>
    inputWarnings(io(inputs), {source: resolveSource(inputs['source'] ?? '', inputs['workdir'] ?? '', github)});

  test('none without workdir', () => {
    expect(warn({source: '.'})).toEqual([]);
  });

  test('workdir is deprecated: the warning names source and the value to set', () => {
    expect(warn({source: '.', workdir: join(checkout, 'sub')})).toEqual([
      `Input "workdir" is deprecated: docker/bake-action v7 removed it; set "source: ${join(checkout, 'sub')}" instead. Until then bake runs in "${join(checkout, 'sub')}".`
    ]);
    expect(warn({workdir: join(checkout, 'sub')})[0]).toMatch(
      /Input "workdir" is deprecated: docker\/bake-action v7 removed it; remove it \(with a remote "source", v7 runs bake in the step's working directory\)/
    );
  });
});
