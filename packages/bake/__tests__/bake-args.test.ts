// Parity with docker/bake-action: for the same inputs, environment, buildx version and bake definition, our
// `docker buildx bake` argv equals theirs. Two tables of docker's own (__tests__/context.test.ts,
// `describe('getArgs')`, same numbers): v6's cases [0]–[14] below, and v7.1.0's [0]–[16] as data in
// fixtures/docker-v7-getargs.ts. v6's fixtures: repository docker/build-push-action on refs/heads/master (no
// sha), run 123456789 attempt 1, a private repository in the event payload, a builder whose node runs
// BuildKit v0.11.0, the `validate` definition its mocked Bake.getDefinition returns
// (fixtures/bake-def-validate.json), and the metadata file in the temp dir. Its default provenance is set per
// target (`--set <target>.attest=…`, docker/bake-action#359, released in v6.10.0). Cases [15]+ of the v6
// table are ours, derived from docker's src/context.ts (getBakeArgs, getCommonArgs, getBakeContext) and
// src/main.ts.
import {afterAll, describe, expect, test} from '@jest/globals';
import {mkdtempSync, readFileSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {dirname, join} from 'node:path';
import {fileURLToPath} from 'node:url';
import {BuildFiles, GitHubContext, parseBakeDefinition, type BakeDefinition} from '@remote-builder-actions/core/step';
import {getArgs, getPrintArgs, gitAuthToken} from '../src/bake-args.js';
import {getInputs, Input} from '../src/context.js';
import {bakeV7Cases} from './fixtures/docker-v7-getargs.js';

const fixturesDir = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');
// Made when the module loads: the tables below are built from these paths.
const tmpDir = mkdtempSync(join(tmpdir(), 'bake-parity-'));
const metadataJson = BuildFiles.at(tmpDir).metadataFile;
afterAll(() => rmSync(tmpDir, {recursive: true, force: true}));

const RUN = 'https://github.com/docker/build-push-action/actions/runs/123456789/attempts/1';
const GIT = 'https://github.com/docker/build-push-action.git#refs/heads/master';
const MIN = `type=provenance,mode=min,inline-only=true,builder-id=${RUN}`;
const BOOLS: [string, string][] = [
  ['load', 'false'],
  ['no-cache', 'false'],
  ['push', 'false'],
  ['pull', 'false']
];
/** docker's default provenance for the three targets of the `validate` definition. */
const VALIDATE_PROVENANCE = (attest: string): string[] => [
  '--set',
  `lint.attest=${attest}`,
  '--set',
  `validate-docs.attest=${attest}`,
  '--set',
  `validate-vendor.attest=${attest}`
];

function definition(name: string): BakeDefinition {
  return parseBakeDefinition(readFileSync(join(fixturesDir, `bake-def-${name}.json`), 'utf8'));
}

function baseEnv(): NodeJS.ProcessEnv {
  return {
    GITHUB_REPOSITORY: 'docker/build-push-action',
    GITHUB_REF: 'refs/heads/master',
    GITHUB_RUN_ID: '123456789',
    GITHUB_RUN_ATTEMPT: '1',
    GITHUB_EVENT_PATH: join(fixturesDir, 'event-private-repo.json'),
    // Ours, not docker's; they do not change the argv.
    REMOTE_BUILDER_API_URL: 'https://api.example.test',
    REMOTE_BUILDER_API_KEY: 'test-key'
  };
}

function io(inputs: Map<string, string>, envs?: Map<string, string>) {
  const env = {...baseEnv(), ...Object.fromEntries(envs ?? [])};
  return {
    getInput: (name: string) => (inputs.get(name) ?? (name === Input.ProfileName ? 'test-profile' : '')).trim(),
    env
  };
}

function args(
  buildxVersion: string,
  inputs: Map<string, string>,
  envs?: Map<string, string>,
  def: BakeDefinition = definition('validate')
): string[] {
  const {getInput, env} = io(inputs, envs);
  return getArgs(getInputs({getInput, env}), {
    buildxVersion,
    definition: def,
    metadataFile: metadataJson,
    github: new GitHubContext(env),
    buildkitSupportsAttestations: true,
    env
  }).args;
}

describe('getArgs: parity with docker/bake-action v7.1.0', () => {
  const V7_ENV: [string, string][] = [['GITHUB_REPOSITORY', 'docker/bake-action']];
  test.each(bakeV7Cases(metadataJson).map(c => [c[0], c[1], c] as const))(
    '[%d] buildx %s: the argv docker v7.1.0 builds',
    (_n, _v, [, buildxVersion, inputs, expected, envs]) => {
      expect(args(buildxVersion, new Map(inputs), new Map([...V7_ENV, ...(envs ?? [])]))).toEqual(expected);
    }
  );
});

describe('getArgs: parity with docker/bake-action v6', () => {
  // prettier-ignore
  const cases: [number, string, Map<string, string>, () => string[], Map<string, string> | undefined, string?][] = [
    [0, '0.4.1', new Map([['source', '.'], ...BOOLS]), () => ['bake'], undefined],
    [1, '0.8.2', new Map([['source', '.'], ...BOOLS]), () => ['bake', '--metadata-file', metadataJson], undefined],
    [2, '0.8.2', new Map([['source', '.'], ['targets', 'webapp\nvalidate'], ...BOOLS]), () => ['bake', '--metadata-file', metadataJson, 'webapp', 'validate'], undefined],
    [3, '0.8.2', new Map([['source', '.'], ['set', '*.cache-from=type=gha\n*.cache-to=type=gha'], ...BOOLS]),
      () => ['bake', '--set', '*.cache-from=type=gha', '--set', '*.cache-to=type=gha', '--metadata-file', metadataJson], undefined],
    [4, '0.10.0', new Map([['source', '.'], ...BOOLS]), () => ['bake', '--metadata-file', metadataJson, ...VALIDATE_PROVENANCE(MIN)], undefined],
    [5, '0.10.0', new Map([['source', '.'], ...BOOLS, ['provenance', 'true']]), () => ['bake', '--metadata-file', metadataJson, '--provenance', `builder-id=${RUN}`], undefined],
    [6, '0.10.0', new Map([['source', '.'], ...BOOLS, ['provenance', 'mode=max']]), () => ['bake', '--metadata-file', metadataJson, '--provenance', `mode=max,builder-id=${RUN}`], undefined],
    [7, '0.10.0', new Map([['source', '.'], ...BOOLS, ['provenance', 'false']]), () => ['bake', '--metadata-file', metadataJson, '--provenance', 'false'], undefined],
    [8, '0.10.0', new Map([['source', '.'], ...BOOLS, ['provenance', 'builder-id=foo']]), () => ['bake', '--metadata-file', metadataJson, '--provenance', 'builder-id=foo'], undefined],
    [9, '0.10.0', new Map([['source', '.'], ...BOOLS, ['set', `*.platform=linux/amd64,linux/ppc64le,linux/s390x\n*.output=type=image,"name=moby/buildkit:v0.11.0,moby/buildkit:latest",push=true`], ['targets', `"image-all"`]]),
      () => ['bake', '--set', '*.platform=linux/amd64,linux/ppc64le,linux/s390x', '--set', `*.output=type=image,"name=moby/buildkit:v0.11.0,moby/buildkit:latest",push=true`, '--metadata-file', metadataJson, ...VALIDATE_PROVENANCE(MIN), 'image-all'], undefined],
    [10, '0.10.0', new Map([['source', '.'], ...BOOLS, ['set', `*.labels.foo=bar=#baz`], ['targets', `"image-all"`]]),
      () => ['bake', '--set', `*.labels.foo=bar=#baz`, '--metadata-file', metadataJson, ...VALIDATE_PROVENANCE(MIN), 'image-all'], undefined],
    [11, '0.10.0', new Map([...BOOLS, ['files', './foo.hcl']]), () => ['bake', GIT, '--file', './foo.hcl', '--metadata-file', metadataJson, ...VALIDATE_PROVENANCE(MIN)], undefined],
    [12, '0.17.0', new Map([['source', '.'], ['allow', 'network.host'], ...BOOLS]), () => ['bake', '--allow', 'network.host', '--metadata-file', metadataJson, ...VALIDATE_PROVENANCE(MIN)], undefined],
    [13, '0.15.0', new Map([['source', '{{defaultContext}}:subdir'], ...BOOLS, ['files', './foo.hcl']]),
      () => ['bake', `${GIT}:subdir`, '--file', './foo.hcl', '--metadata-file', metadataJson, ...VALIDATE_PROVENANCE(MIN)], undefined],
    [14, '0.15.0', new Map([['source', '.'], ...BOOLS]), () => ['bake', '--metadata-file', metadataJson], new Map([['BUILDX_NO_DEFAULT_ATTESTATIONS', '1']])],
    // Ours, from docker's getBakeArgs/getCommonArgs/getSourceInput.
    [15, '0.16.0', new Map([['source', '.'], ['call', 'check'], ['allow', 'network.host'], ...BOOLS]),
      () => ['bake', '--call', 'check', '--metadata-file', metadataJson, ...VALIDATE_PROVENANCE(MIN)], undefined],
    [16, '0.18.0', new Map([['source', '.'], ['allow', 'network.host,security.insecure'], ...BOOLS]),
      () => ['bake', '--allow', 'network.host', '--allow', 'security.insecure', '--allow', 'fs=*', '--metadata-file', metadataJson, ...VALIDATE_PROVENANCE(MIN)], undefined],
    [17, '0.13.1', new Map([['source', '.'], ['load', 'true'], ['no-cache', 'false'], ['push', 'false'], ['pull', 'false']]),
      () => ['bake', '--metadata-file', metadataJson, '--load'], undefined],
    [18, '0.13.1', new Map([['source', '.'], ['builder', 'builder-1'], ['sbom', 'true'], ['load', 'false'], ['no-cache', 'true'], ['push', 'true'], ['pull', 'true'], ['targets', 'lint,validate-docs']]),
      () => ['bake', '--metadata-file', metadataJson, ...VALIDATE_PROVENANCE(MIN), '--sbom', 'true', '--no-cache', '--builder', 'builder-1', '--pull', '--push', 'lint', 'validate-docs'], undefined],
    [19, '0.13.1', new Map([['source', '.'], ...BOOLS]), () => ['bake', '--metadata-file', metadataJson, '--set', `t1.attest=${MIN}`, '--set', `t3.attest=${MIN}`], undefined, 'attest'],
    [20, '0.13.1', new Map([['source', '.'], ...BOOLS]), () => ['bake', '--metadata-file', metadataJson, ...VALIDATE_PROVENANCE(`type=provenance,mode=max,builder-id=${RUN}`)],
      new Map([['GITHUB_EVENT_PATH', join(fixturesDir, 'event-public-repo.json')]])],
    [21, '0.13.1', new Map([['source', '.'], ...BOOLS]), () => ['bake', '--metadata-file', metadataJson], undefined, 'load'],
    [22, '0.13.1', new Map([['source', 'https://github.com/other/repo.git#main'], ['files', 'a.hcl\nb.hcl'], ...BOOLS]),
      () => ['bake', 'https://github.com/other/repo.git#main', '--file', 'a.hcl', '--file', 'b.hcl', '--metadata-file', metadataJson, ...VALIDATE_PROVENANCE(MIN)], undefined],
    [23, '0.13.1', new Map(BOOLS), () => ['bake', 'https://github.example.com/docker/build-push-action.git#refs/heads/master', '--metadata-file', metadataJson,
      ...VALIDATE_PROVENANCE('type=provenance,mode=min,inline-only=true,builder-id=https://github.example.com/docker/build-push-action/actions/runs/123456789/attempts/1')],
      new Map([['GITHUB_SERVER_URL', 'https://github.example.com']])],
    [24, '0.9.1', new Map([['source', '.'], ...BOOLS, ['provenance', 'true'], ['sbom', 'true']]), () => ['bake', '--metadata-file', metadataJson], undefined],
    [25, '0.13.1', new Map([['source', '.'], ...BOOLS]), () => ['bake', '--metadata-file', metadataJson, ...VALIDATE_PROVENANCE(MIN)], new Map([['BUILDX_NO_DEFAULT_ATTESTATIONS', 'false']])],
    [26, '0.13.1', new Map([['source', '{{defaultContext}}'], ['workdir', '.'], ['github-token', 'ghs_abc'], ...BOOLS, ['provenance', 'mode=max']]),
      () => ['bake', 'https://github.com/docker/build-push-action.git#0123456789abcdef0123456789abcdef01234567', '--metadata-file', metadataJson, '--provenance', `mode=max,builder-id=${RUN}`],
      new Map([['GITHUB_SHA', '0123456789abcdef0123456789abcdef01234567']])]
  ];

  // A rest parameter: jest would take a sixth declared parameter for its `done` callback.
  test.each(cases)('[%d] buildx %s: the argv docker v6 builds', (...row) => {
    const [, buildxVersion, inputs, expected, envs, def] = row;
    expect(args(buildxVersion, inputs, envs, def ? definition(def) : undefined)).toEqual(expected());
  });

  test('call needs buildx >= 0.16.0, as in docker', () => {
    expect(() => args('0.15.1', new Map([['source', '.'], ['call', 'check'], ...BOOLS]))).toThrow(
      /Input "call": buildx >= 0.16.0 is required to use the call input \(found 0.15.1\): update buildx on the runner, set "buildx-version: latest" \(or v0\.16\.0 or later\) to install a newer buildx for the step, or remove "call"/
    );
  });

  test('inputs docker ignores silently on an old buildx are warned about', () => {
    const {getInput, env} = io(new Map([['source', '.'], ['allow', 'network.host'], ['sbom', 'true'], ...BOOLS]));
    const res = getArgs(getInputs({getInput, env}), {
      buildxVersion: '0.9.1',
      definition: definition('validate'),
      metadataFile: metadataJson,
      github: new GitHubContext(env),
      buildkitSupportsAttestations: true,
      env
    });
    expect(res.warnings).toEqual([
      "The input 'allow' is only supported by buildx >= 0.17.0 (bake --allow); it is ignored.",
      "Attestations are only supported by buildx >= 0.10.0; the inputs 'provenance' and 'sbom' are ignored."
    ]);
  });

  test('no default provenance when the builder BuildKit is unknown or < 0.11.0', () => {
    const {getInput, env} = io(new Map([['source', '.'], ...BOOLS]));
    const res = getArgs(getInputs({getInput, env}), {
      buildxVersion: '0.13.1',
      definition: definition('validate'),
      metadataFile: metadataJson,
      github: new GitHubContext(env),
      buildkitSupportsAttestations: false,
      env
    });
    expect(res.args).toEqual(['bake', '--metadata-file', metadataJson]);
  });
});

describe('getPrintArgs: the definition is resolved as docker resolves it (Bake.getDefinition)', () => {
  // prettier-ignore
  const cases: [number, string, Map<string, string>, string[]][] = [
    [1, '0.17.0', new Map([['source', '.']]), ['bake', '--print']],
    [2, '0.17.0', new Map([['files', './foo.hcl']]), ['bake', GIT, '--file', './foo.hcl', '--print']],
    [3, '0.17.0', new Map([['source', '.'], ['files', 'a.hcl,b.hcl'], ['set', '*.platform=linux/amd64\n*.tags=a/b:1'], ['targets', 'web\napi']]),
      ['bake', '--file', 'a.hcl', '--file', 'b.hcl', '--set', '*.platform=linux/amd64', '--set', '*.tags=a/b:1', '--print', 'web', 'api']],
    [4, '0.17.0', new Map([['source', '.'], ['allow', 'network.host'], ['call', 'check'], ['load', 'true'], ['no-cache', 'true'], ['provenance', 'mode=max'], ['push', 'true'], ['sbom', 'true'], ['pull', 'true']]),
      ['bake', '--allow', 'network.host', '--call', 'check', '--load', '--no-cache', '--provenance', `mode=max,builder-id=${RUN}`, '--push', '--sbom', 'true', '--print']],
    [5, '0.17.0', new Map([['source', 'https://github.com/other/repo.git#main'], ['files', 'a.hcl']]), ['bake', 'https://github.com/other/repo.git#main', '--file', 'a.hcl', '--print']],
    // buildx < 0.17 has no `bake --allow` ("unknown flag"): docker passes it anyway, we do not.
    [6, '0.16.2', new Map([['source', '.'], ['allow', 'network.host,security.insecure'], ['targets', 'web']]), ['bake', '--print', 'web']],
    // The default Git context in the form the bake gets (actions-toolkit 0.87).
    [7, '0.29.0', new Map([['files', './foo.hcl']]), ['bake', 'https://github.com/docker/build-push-action.git?ref=refs/heads/master', '--file', './foo.hcl', '--print']]
  ];

  test.each(cases)('[%d] buildx %s: %o', (_n, buildxVersion, inputs, expected) => {
    const {getInput, env} = io(inputs, new Map([['BUILDX_SEND_GIT_QUERY_AS_INPUT', 'true']]));
    expect(getPrintArgs(getInputs({getInput, env}), {github: new GitHubContext(env), buildxVersion})).toEqual(expected);
  });

  test('no bake call carries --allow on buildx < 0.17.0', () => {
    const inputs = new Map([['source', '.'], ['allow', 'network.host'], ...BOOLS]);
    const {getInput, env} = io(inputs);
    const parsed = getInputs({getInput, env});
    const github = new GitHubContext(env);
    expect(getPrintArgs(parsed, {github, buildxVersion: '0.16.2'})).not.toContain('--allow');
    expect(args('0.16.2', inputs)).not.toContain('--allow');
  });
});

describe('gitAuthToken', () => {
  test('BUILDX_BAKE_GIT_AUTH_TOKEN wins over github-token, as in docker main', () => {
    expect(gitAuthToken({'github-token': 'ghs_input'}, {})).toBe('ghs_input');
    expect(gitAuthToken({'github-token': 'ghs_input'}, {BUILDX_BAKE_GIT_AUTH_TOKEN: 'mine'})).toBe('mine');
    expect(gitAuthToken({'github-token': ''}, {})).toBe('');
  });
});
