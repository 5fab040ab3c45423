// Parity with docker/build-push-action: for the same inputs, environment and buildx version, our
// `docker buildx build` argv equals theirs. Two tables of docker's own (__tests__/context.test.ts,
// `describe('getArgs')`, same numbers): v6.19.2's cases [0]–[36] below, and v7.3.0's [0]–[38] as data in
// fixtures/docker-v7-getargs.ts. Where they differ v7 wins: [11] (a secret file is passed by its own path).
// Their fixtures: repository docker/build-push-action on refs/heads/master (no sha), run 123456789 attempt 1,
// a private repository in the event payload, a builder whose node runs BuildKit v0.11.0, every secret file
// named `.tmpname-jest` in the temp dir, and `iidfile.txt` / `metadata.json` there. Cases [37]+ of the v6
// table are ours, derived from docker's src/context.ts (getBuildArgs, getCommonArgs, getAttestArgs).
import {afterAll, describe, expect, test} from '@jest/globals';
import {mkdtempSync, readFileSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {dirname, join} from 'node:path';
import {fileURLToPath} from 'node:url';
import {
  BuildFiles,
  buildkitSupportsAttestations,
  GitHubContext,
  nullLogger,
  SecretStore,
  type Logger
} from '@remote-builder-actions/core/step';
import {defaultGitContext, getArgs, renderContext, resolveSecrets} from '../src/build-args.js';
import {getInputs, Input} from '../src/context.js';
import {buildPushV7Cases} from './fixtures/docker-v7-getargs.js';

const fixturesDir = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');
// Made when the module loads: the tables below are built from these paths.
const tmpDir = mkdtempSync(join(tmpdir(), 'build-push-parity-'));
const tmpName = join(tmpDir, '.tmpname-jest');
const imageIDFilePath = BuildFiles.at(tmpDir).imageIdFile;
const metadataJson = BuildFiles.at(tmpDir).metadataFile;
afterAll(() => rmSync(tmpDir, {recursive: true, force: true}));

const RUN = 'https://github.com/docker/build-push-action/actions/runs/123456789/attempts/1';
const GIT = 'https://github.com/docker/build-push-action.git#refs/heads/master';
const QUERY = 'https://github.com/docker/build-push-action.git?ref=ffac537e6cbbf934b08745a378932722df287a53';
const BOOLS: [string, string][] = [
  ['load', 'false'],
  ['no-cache', 'false'],
  ['push', 'false'],
  ['pull', 'false']
];

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

/** The inputs as the runner passes them (INPUT_<NAME>); getInput trims, as @actions/core does by default. */
function inputIO(inputs: Map<string, string>, envs?: Map<string, string>) {
  const env: NodeJS.ProcessEnv = {...baseEnv(), ...Object.fromEntries(envs ?? [])};
  if (!inputs.has(Input.ProfileName)) env['INPUT_PROFILE-NAME'] = 'test-profile';
  for (const [name, value] of inputs) env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] = value;
  return {getInput: (name: string) => (env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] ?? '').trim(), env};
}

function args(
  buildxVersion: string,
  inputs: Map<string, string>,
  envs?: Map<string, string>,
  logger: Logger = nullLogger
): string[] {
  const io = inputIO(inputs, envs);
  const env = io.env;
  const parsed = getInputs(io);
  const github = new GitHubContext(env);
  const defaultContext = defaultGitContext(github, buildxVersion);
  const context = renderContext(parsed, defaultContext);
  const store = new SecretStore({dir: tmpDir, logger, nextFileName: () => '.tmpname-jest'});
  const secrets = resolveSecrets(parsed, context, defaultContext, store, github, logger);
  return getArgs(parsed, {
    buildxVersion,
    context,
    defaultContext,
    github,
    secrets,
    imageIdFile: imageIDFilePath,
    metadataFile: metadataJson,
    buildkitSupportsAttestations: buildkitSupportsAttestations([{buildkit: 'v0.11.0'}], 'docker-container'),
    env
  }).args;
}

describe('getArgs: parity with docker/build-push-action v7.3.0', () => {
  test.each(buildPushV7Cases({tmpName, imageIDFilePath, metadataJson, fixturesDir}).map(c => [c[0], c[1], c] as const))(
    '[%d] buildx %s: the argv docker v7.3.0 builds',
    (_n, _v, [, buildxVersion, inputs, expected, envs]) => {
      expect(args(buildxVersion, new Map(inputs), envs && new Map(envs))).toEqual(expected);
    }
  );
});

describe('getArgs: parity with docker/build-push-action v6', () => {
  // prettier-ignore
  const cases: [number, string, Map<string, string>, () => string[], Map<string, string> | undefined][] = [
    [0, '0.4.1', new Map([['context', '.'], ...BOOLS]), () => ['build', '--iidfile', imageIDFilePath, '.'], undefined],
    [1, '0.4.2', new Map([['build-args', `MY_ARG=val1,val2,val3
ARG=val
"MULTILINE=aaaa
bbbb
ccc"`], ...BOOLS]), () => ['build', '--build-arg', 'MY_ARG=val1,val2,val3', '--build-arg', 'ARG=val', '--build-arg', 'MULTILINE=aaaa\nbbbb\nccc', '--iidfile', imageIDFilePath, GIT], undefined],
    [2, '0.4.2', new Map([['tags', 'name/app:7.4, name/app:latest'], ...BOOLS]), () => ['build', '--iidfile', imageIDFilePath, '--tag', 'name/app:7.4', '--tag', 'name/app:latest', GIT], undefined],
    [3, '0.4.2', new Map([['context', '.'], ['labels', 'org.opencontainers.image.title=buildkit\norg.opencontainers.image.description=concurrent, cache-efficient, and Dockerfile-agnostic builder toolkit'], ['outputs', 'type=local,dest=./release-out'], ...BOOLS]),
      () => ['build', '--label', 'org.opencontainers.image.title=buildkit', '--label', 'org.opencontainers.image.description=concurrent, cache-efficient, and Dockerfile-agnostic builder toolkit', '--output', 'type=local,dest=./release-out', '.'], undefined],
    [4, '0.4.1', new Map([['context', '.'], ['platforms', 'linux/amd64,linux/arm64'], ...BOOLS]), () => ['build', '--platform', 'linux/amd64,linux/arm64', '.'], undefined],
    [5, '0.4.1', new Map([['context', '.'], ...BOOLS]), () => ['build', '--iidfile', imageIDFilePath, '.'], undefined],
    [6, '0.4.2', new Map([['context', '.'], ['secrets', 'GIT_AUTH_TOKEN=abcdefghijklmno=0123456789'], ...BOOLS]), () => ['build', '--iidfile', imageIDFilePath, '--secret', `id=GIT_AUTH_TOKEN,src=${tmpName}`, '.'], undefined],
    [7, '0.4.2', new Map([['github-token', 'abcdefghijklmno0123456789'], ['outputs', '.'], ...BOOLS]), () => ['build', '--output', '.', '--secret', `id=GIT_AUTH_TOKEN.github.com,src=${tmpName}`, GIT], undefined],
    [8, '0.4.2', new Map([['context', GIT], ['tag', 'localhost:5000/name/app:latest'], ['platforms', 'linux/amd64,linux/arm64'], ['secrets', 'GIT_AUTH_TOKEN=abcdefghijklmno=0123456789'], ['file', './test/Dockerfile'], ['builder', 'builder-git-context-2'], ['load', 'false'], ['no-cache', 'false'], ['push', 'true'], ['pull', 'false']]),
      () => ['build', '--file', './test/Dockerfile', '--iidfile', imageIDFilePath, '--platform', 'linux/amd64,linux/arm64', '--secret', `id=GIT_AUTH_TOKEN,src=${tmpName}`, '--builder', 'builder-git-context-2', '--push', GIT], undefined],
    [9, '0.4.2', new Map([['context', GIT], ['tag', 'localhost:5000/name/app:latest'], ['platforms', 'linux/amd64,linux/arm64'], ['secrets', `GIT_AUTH_TOKEN=abcdefghi,jklmno=0123456789
"MYSECRET=aaaaaaaa
bbbbbbb
ccccccccc"
FOO=bar
"EMPTYLINE=aaaa

bbbb
ccc"`], ['file', './test/Dockerfile'], ['builder', 'builder-git-context-2'], ['load', 'false'], ['no-cache', 'false'], ['push', 'true'], ['pull', 'false']]),
      () => ['build', '--file', './test/Dockerfile', '--iidfile', imageIDFilePath, '--platform', 'linux/amd64,linux/arm64', '--secret', `id=GIT_AUTH_TOKEN,src=${tmpName}`, '--secret', `id=MYSECRET,src=${tmpName}`, '--secret', `id=FOO,src=${tmpName}`, '--secret', `id=EMPTYLINE,src=${tmpName}`, '--builder', 'builder-git-context-2', '--push', GIT], undefined],
    [10, '0.4.2', new Map([['context', GIT], ['tag', 'localhost:5000/name/app:latest'], ['platforms', 'linux/amd64,linux/arm64'], ['secrets', `GIT_AUTH_TOKEN=abcdefghi,jklmno=0123456789
MYSECRET=aaaaaaaa
bbbbbbb
ccccccccc
FOO=bar
EMPTYLINE=aaaa

bbbb
ccc`], ['file', './test/Dockerfile'], ['builder', 'builder-git-context-2'], ['load', 'false'], ['no-cache', 'false'], ['push', 'true'], ['pull', 'false']]),
      () => ['build', '--file', './test/Dockerfile', '--iidfile', imageIDFilePath, '--platform', 'linux/amd64,linux/arm64', '--secret', `id=GIT_AUTH_TOKEN,src=${tmpName}`, '--secret', `id=MYSECRET,src=${tmpName}`, '--secret', `id=FOO,src=${tmpName}`, '--secret', `id=EMPTYLINE,src=${tmpName}`, '--builder', 'builder-git-context-2', '--push', GIT], undefined],
    [11, '0.5.1', new Map([['context', GIT], ['tag', 'localhost:5000/name/app:latest'], ['secret-files', `MY_SECRET=${join(fixturesDir, 'secret.txt')}`], ['file', './test/Dockerfile'], ['builder', 'builder-git-context-2'], ['network', 'host'], ['load', 'false'], ['no-cache', 'false'], ['push', 'true'], ['pull', 'false']]),
      // v6 copied the file (src=<tmpName>); v7 wins: its own path.
      () => ['build', '--file', './test/Dockerfile', '--iidfile', imageIDFilePath, '--secret', `id=MY_SECRET,src=${join(fixturesDir, 'secret.txt')}`, '--builder', 'builder-git-context-2', '--network', 'host', '--push', GIT], undefined],
    [12, '0.4.2', new Map([['context', '.'], ['labels', 'org.opencontainers.image.title=filter_results_top_n\norg.opencontainers.image.description=Reference implementation of operation "filter results (top-n)"'], ['outputs', 'type=local,dest=./release-out'], ...BOOLS]),
      () => ['build', '--label', 'org.opencontainers.image.title=filter_results_top_n', '--label', 'org.opencontainers.image.description=Reference implementation of operation "filter results (top-n)"', '--output', 'type=local,dest=./release-out', '.'], undefined],
    [13, '0.6.0', new Map([['context', '.'], ['tag', 'localhost:5000/name/app:latest'], ['file', './test/Dockerfile'], ['add-hosts', 'docker:10.180.0.1,foo:10.0.0.1'], ['network', 'host'], ['load', 'false'], ['no-cache', 'false'], ['push', 'true'], ['pull', 'false']]),
      () => ['build', '--add-host', 'docker:10.180.0.1', '--add-host', 'foo:10.0.0.1', '--file', './test/Dockerfile', '--iidfile', imageIDFilePath, '--metadata-file', metadataJson, '--network', 'host', '--push', '.'], undefined],
    [14, '0.7.0', new Map([['context', '.'], ['file', './test/Dockerfile'], ['add-hosts', 'docker:10.180.0.1\nfoo:10.0.0.1'], ['cgroup-parent', 'foo'], ['shm-size', '2g'], ['ulimit', `nofile=1024:1024
nproc=3`], ...BOOLS]),
      () => ['build', '--add-host', 'docker:10.180.0.1', '--add-host', 'foo:10.0.0.1', '--cgroup-parent', 'foo', '--file', './test/Dockerfile', '--iidfile', imageIDFilePath, '--shm-size', '2g', '--ulimit', 'nofile=1024:1024', '--ulimit', 'nproc=3', '--metadata-file', metadataJson, '.'], undefined],
    [15, '0.7.0', new Map([['context', '{{defaultContext}}:docker'], ...BOOLS]), () => ['build', '--iidfile', imageIDFilePath, '--metadata-file', metadataJson, `${GIT}:docker`], undefined],
    [16, '0.8.2', new Map([['github-token', 'abcdefghijklmno0123456789'], ['context', '{{defaultContext}}:subdir'], ...BOOLS]),
      () => ['build', '--iidfile', imageIDFilePath, '--secret', `id=GIT_AUTH_TOKEN.github.com,src=${tmpName}`, '--metadata-file', metadataJson, `${GIT}:subdir`], undefined],
    [17, '0.8.2', new Map([['context', '.'], ...BOOLS, ['provenance', 'true']]), () => ['build', '--iidfile', imageIDFilePath, '--metadata-file', metadataJson, '.'], undefined],
    [18, '0.10.0', new Map([['context', '.'], ...BOOLS]), () => ['build', '--iidfile', imageIDFilePath, '--attest', `type=provenance,mode=min,inline-only=true,builder-id=${RUN}`, '--metadata-file', metadataJson, '.'], undefined],
    [19, '0.10.0', new Map([['context', '.'], ...BOOLS, ['provenance', 'true']]), () => ['build', '--iidfile', imageIDFilePath, '--attest', `type=provenance,builder-id=${RUN}`, '--metadata-file', metadataJson, '.'], undefined],
    [20, '0.10.0', new Map([['context', '.'], ...BOOLS, ['provenance', 'mode=max']]), () => ['build', '--iidfile', imageIDFilePath, '--attest', `type=provenance,mode=max,builder-id=${RUN}`, '--metadata-file', metadataJson, '.'], undefined],
    [21, '0.10.0', new Map([['context', '.'], ...BOOLS, ['provenance', 'false']]), () => ['build', '--iidfile', imageIDFilePath, '--attest', 'type=provenance,disabled=true', '--metadata-file', metadataJson, '.'], undefined],
    [22, '0.10.0', new Map([['context', '.'], ...BOOLS, ['provenance', 'builder-id=foo']]), () => ['build', '--iidfile', imageIDFilePath, '--attest', 'type=provenance,builder-id=foo', '--metadata-file', metadataJson, '.'], undefined],
    [23, '0.10.0', new Map([['context', '.'], ...BOOLS, ['outputs', 'type=docker']]), () => ['build', '--iidfile', imageIDFilePath, '--output', 'type=docker', '--metadata-file', metadataJson, '.'], undefined],
    [24, '0.10.0', new Map([['context', '.'], ['load', 'true'], ['no-cache', 'false'], ['push', 'false'], ['pull', 'false']]), () => ['build', '--iidfile', imageIDFilePath, '--load', '--metadata-file', metadataJson, '.'], undefined],
    [25, '0.10.0', new Map([['context', '.'], ['build-args', 'FOO=bar#baz'], ['load', 'true'], ['no-cache', 'false'], ['push', 'false'], ['pull', 'false']]),
      () => ['build', '--build-arg', 'FOO=bar#baz', '--iidfile', imageIDFilePath, '--load', '--metadata-file', metadataJson, '.'], undefined],
    [26, '0.10.0', new Map([['context', '.'], ['no-cache', 'false'], ['load', 'true'], ['push', 'false'], ['pull', 'false'], ['secret-envs', `MY_SECRET=MY_SECRET_ENV
ANOTHER_SECRET=ANOTHER_SECRET_ENV`]]),
      () => ['build', '--secret', 'id=MY_SECRET,env=MY_SECRET_ENV', '--secret', 'id=ANOTHER_SECRET,env=ANOTHER_SECRET_ENV', '--iidfile', imageIDFilePath, '--load', '--metadata-file', metadataJson, '.'], undefined],
    [27, '0.10.0', new Map([['context', '.'], ['no-cache', 'false'], ['load', 'true'], ['push', 'false'], ['pull', 'false'], ['secret-envs', 'MY_SECRET=MY_SECRET_ENV,ANOTHER_SECRET=ANOTHER_SECRET_ENV']]),
      () => ['build', '--secret', 'id=MY_SECRET,env=MY_SECRET_ENV', '--secret', 'id=ANOTHER_SECRET,env=ANOTHER_SECRET_ENV', '--iidfile', imageIDFilePath, '--load', '--metadata-file', metadataJson, '.'], undefined],
    [28, '0.11.0', new Map([['context', '.'], ['annotations', 'example1=www\nindex:example2=xxx\nmanifest:example3=yyy\nmanifest-descriptor[linux/amd64]:example4=zzz'], ['outputs', 'type=local,dest=./release-out'], ...BOOLS]),
      () => ['build', '--output', 'type=local,dest=./release-out', '--attest', `type=provenance,mode=min,inline-only=true,builder-id=${RUN}`, '--metadata-file', metadataJson, '.'], undefined],
    [29, '0.12.0', new Map([['context', '.'], ['annotations', 'example1=www\nindex:example2=xxx\nmanifest:example3=yyy\nmanifest-descriptor[linux/amd64]:example4=zzz'], ['outputs', 'type=local,dest=./release-out'], ...BOOLS]),
      () => ['build', '--annotation', 'example1=www', '--annotation', 'index:example2=xxx', '--annotation', 'manifest:example3=yyy', '--annotation', 'manifest-descriptor[linux/amd64]:example4=zzz', '--output', 'type=local,dest=./release-out', '--attest', `type=provenance,mode=min,inline-only=true,builder-id=${RUN}`, '--metadata-file', metadataJson, '.'], undefined],
    [30, '0.12.0', new Map([['context', '.'], ['outputs', 'type=image,"name=localhost:5000/name/app:latest,localhost:5000/name/app:foo",push-by-digest=true,name-canonical=true,push=true'], ...BOOLS]),
      () => ['build', '--iidfile', imageIDFilePath, '--output', 'type=image,"name=localhost:5000/name/app:latest,localhost:5000/name/app:foo",push-by-digest=true,name-canonical=true,push=true', '--attest', `type=provenance,mode=min,inline-only=true,builder-id=${RUN}`, '--metadata-file', metadataJson, '.'], undefined],
    [31, '0.13.1', new Map([['context', '.'], ...BOOLS, ['provenance', 'mode=max'], ['sbom', 'true']]),
      () => ['build', '--iidfile', imageIDFilePath, '--attest', `type=provenance,mode=max,builder-id=${RUN}`, '--attest', 'type=sbom,disabled=false', '--metadata-file', metadataJson, '.'], undefined],
    [32, '0.13.1', new Map([['context', '.'], ...BOOLS, ['attests', 'type=provenance,mode=min'], ['provenance', 'mode=max']]),
      () => ['build', '--iidfile', imageIDFilePath, '--attest', `type=provenance,mode=max,builder-id=${RUN}`, '--metadata-file', metadataJson, '.'], undefined],
    [33, '0.13.1', new Map([['context', '.'], ...BOOLS, ['attests', 'type=provenance,mode=min']]),
      () => ['build', '--iidfile', imageIDFilePath, '--attest', `type=provenance,mode=min,builder-id=${RUN}`, '--metadata-file', metadataJson, '.'], undefined],
    [34, '0.13.1', new Map([['context', '.'], ...BOOLS]), () => ['build', '--iidfile', imageIDFilePath, '--metadata-file', metadataJson, '.'], new Map([['BUILDX_NO_DEFAULT_ATTESTATIONS', '1']])],
    [35, '0.13.1', new Map([['github-token', 'abcdefghijklmno0123456789'], ['context', '{{defaultContext}}'], ...BOOLS]),
      () => ['build', '--iidfile', imageIDFilePath, '--attest', 'type=provenance,mode=min,inline-only=true,builder-id=http://10.0.0.5:22827/docker/build-push-action/actions/runs/123456789/attempts/1', '--secret', `id=GIT_AUTH_TOKEN.10.0.0.5:22827,src=${tmpName}`, '--metadata-file', metadataJson, 'http://10.0.0.5:22827/docker/build-push-action.git#refs/heads/master'],
      new Map([['GITHUB_SERVER_URL', 'http://10.0.0.5:22827']])],
    [36, '0.13.1', new Map([['github-token', 'abcdefghijklmno0123456789'], ['context', '{{defaultContext}}'], ...BOOLS]),
      () => ['build', '--iidfile', imageIDFilePath, '--attest', 'type=provenance,mode=min,inline-only=true,builder-id=https://github.cds.internal.unity3d.com/docker/build-push-action/actions/runs/123456789/attempts/1', '--secret', `id=GIT_AUTH_TOKEN.github.cds.internal.unity3d.com,src=${tmpName}`, '--metadata-file', metadataJson, 'https://github.cds.internal.unity3d.com/docker/build-push-action.git#refs/heads/master'],
      new Map([['GITHUB_SERVER_URL', 'https://github.cds.internal.unity3d.com']])],
    // Ours, from docker's getBuildArgs/getCommonArgs.
    [37, '0.8.0', new Map([['context', '.'], ['build-contexts', 'alpine=docker-image://alpine:3.20\nsrc={{defaultContext}}:app'], ['allow', 'network.host,security.insecure'], ...BOOLS]),
      () => ['build', '--allow', 'network.host', '--allow', 'security.insecure', '--build-context', 'alpine=docker-image://alpine:3.20', '--build-context', `src=${GIT}:app`, '--iidfile', imageIDFilePath, '--metadata-file', metadataJson, '.'], undefined],
    [38, '0.7.0', new Map([['context', '.'], ['build-contexts', 'alpine=docker-image://alpine:3.20'], ...BOOLS]),
      () => ['build', '--iidfile', imageIDFilePath, '--metadata-file', metadataJson, '.'], undefined],
    [39, '0.15.0', new Map([['context', '.'], ['call', 'check'], ...BOOLS]),
      () => ['build', '--call', 'check', '--iidfile', imageIDFilePath, '--attest', `type=provenance,mode=min,inline-only=true,builder-id=${RUN}`, '--metadata-file', metadataJson, '.'], undefined],
    [40, '0.13.1', new Map([['context', '.'], ['cache-from', 'user/app:cache\ntype=local,src=path/to/dir'], ['cache-to', 'type=registry,ref=user/app:cache,mode=max'], ['no-cache-filters', 'build,test'], ['ssh', 'default'], ['target', 'release'], ['load', 'false'], ['no-cache', 'true'], ['push', 'false'], ['pull', 'true']]),
      () => ['build', '--cache-from', 'user/app:cache', '--cache-from', 'type=local,src=path/to/dir', '--cache-to', 'type=registry,ref=user/app:cache,mode=max', '--iidfile', imageIDFilePath, '--no-cache-filter', 'build', '--no-cache-filter', 'test', '--attest', `type=provenance,mode=min,inline-only=true,builder-id=${RUN}`, '--ssh', 'default', '--target', 'release', '--metadata-file', metadataJson, '--no-cache', '--pull', '.'], undefined],
    [41, '0.13.1', new Map([['context', '.'], ['attests', 'type=sbom,generator=image\ntype=provenance,mode=max'], ['sbom', 'false'], ...BOOLS]),
      () => ['build', '--iidfile', imageIDFilePath, '--attest', 'type=sbom,disabled=true', '--attest', `type=provenance,mode=max,builder-id=${RUN}`, '--metadata-file', metadataJson, '.'], undefined],
    [42, '0.13.1', new Map([['context', '.'], ['outputs', 'type=tar,dest=out.tar'], ['platforms', 'linux/amd64\nlinux/arm64'], ...BOOLS]),
      () => ['build', '--output', 'type=tar,dest=out.tar', '--platform', 'linux/amd64,linux/arm64', '--attest', `type=provenance,mode=min,inline-only=true,builder-id=${RUN}`, '--metadata-file', metadataJson, '.'], undefined],
    [43, '0.13.1', new Map([['context', '.'], ['secrets', 'GIT_AUTH_TOKEN=mine'], ['github-token', 'abcdefghijklmno0123456789'], ['tags', 'a/b:1\na/b:2,a/b:3'], ...BOOLS]),
      () => ['build', '--iidfile', imageIDFilePath, '--attest', `type=provenance,mode=min,inline-only=true,builder-id=${RUN}`, '--secret', `id=GIT_AUTH_TOKEN,src=${tmpName}`, '--tag', 'a/b:1', '--tag', 'a/b:2', '--tag', 'a/b:3', '--metadata-file', metadataJson, '.'], undefined],
    [44, '0.13.1', new Map([['context', '.'], ['secrets', 'NOVALUE=\n=nokey\nGOOD=ok'], ...BOOLS]),
      () => ['build', '--iidfile', imageIDFilePath, '--attest', `type=provenance,mode=min,inline-only=true,builder-id=${RUN}`, '--secret', `id=GOOD,src=${tmpName}`, '--metadata-file', metadataJson, '.'], undefined],
    [45, '0.13.1', new Map([['context', 'https://github.com/other/repo.git#main'], ['github-token', 'abcdefghijklmno0123456789'], ...BOOLS]),
      () => ['build', '--iidfile', imageIDFilePath, '--attest', `type=provenance,mode=min,inline-only=true,builder-id=${RUN}`, '--metadata-file', metadataJson, 'https://github.com/other/repo.git#main'], undefined],
    // The query form (v7.3.0) in {{defaultContext}}: not HTML-escaped (docker's Handlebars would write ?ref&#x3D;…),
    // and still this repository's context for github-token.
    [46, '0.29.0', new Map([['context', '{{defaultContext}}:subdir'], ['build-contexts', 'src={{defaultContext}}'], ['github-token', 'abcdefghijklmno0123456789'], ...BOOLS]),
      () => ['build', '--build-context', `src=${QUERY}`, '--iidfile', imageIDFilePath, '--attest', `type=provenance,mode=min,inline-only=true,builder-id=${RUN}`, '--secret', `id=GIT_AUTH_TOKEN.github.com,src=${tmpName}`, '--metadata-file', metadataJson, `${QUERY}:subdir`],
      new Map([['BUILDX_SEND_GIT_QUERY_AS_INPUT', 'true'], ['GITHUB_SHA', 'ffac537e6cbbf934b08745a378932722df287a53']])]
  ];

  test.each(cases)('[%d] buildx %s: the argv docker v6 builds', (_n, buildxVersion, inputs, expected, envs) => {
    expect(args(buildxVersion, inputs, envs)).toEqual(expected());
  });

  test('the secret files hold the values', () => {
    args('0.13.1', new Map([['context', '.'], ['secrets', '"MULTI=aaaa\n\nbbbb"'], ...BOOLS]));
    expect(readFileSync(tmpName, 'utf8')).toBe('aaaa\n\nbbbb');
  });

  // v7.3.0 reads `secrets` with trimWhitespace: false (its getInputs test "requests untrimmed secrets input").
  test('secrets values keep trailing whitespace and blank lines (v7.3.0); other lists are still trimmed', () => {
    const secret = (value: string, extra: [string, string][] = []): string => {
      const argv = args('0.13.1', new Map([['context', '.'], ['secrets', value], ...extra, ...BOOLS]));
      expect(argv).toContain(`id=${value.replace(/^"|=[^]*$/g, '')},src=${tmpName}`);
      return readFileSync(tmpName, 'utf8');
    };
    expect(secret('"PRIVATE_SSH_KEY=-----BEGIN KEY-----\nabc\n-----END KEY-----\n\n"')).toBe(
      '-----BEGIN KEY-----\nabc\n-----END KEY-----\n\n'
    );
    expect(secret('TRAILING=value  \t')).toBe('value  \t');
    const tags = args('0.13.1', new Map([['context', '.'], ['tags', ' a/b:1  \n  a/b:2 '], ...BOOLS]));
    expect(tags.filter((_a, i) => tags[i - 1] === '--tag')).toEqual(['a/b:1', 'a/b:2']);
  });

  test('invalid secrets warn without their value; secret values are masked', () => {
    const warnings: string[] = [];
    const secrets: string[] = [];
    const logger: Logger = {...nullLogger, warning: m => warnings.push(m), setSecret: v => secrets.push(v)};
    args(
      '0.13.1',
      new Map([
        ['context', '.'],
        ['secrets', 'just-a-value-xyz\nGOOD=masked-value-1'],
        ['secret-files', 'F=/no/such/file'],
        ...BOOLS
      ]),
      undefined,
      logger
    );
    expect(warnings).toEqual([
      'Input "secrets": an entry has no KEY= part: use KEY=VALUE, one per line; that entry is skipped',
      'Input "secret-files": secret file /no/such/file not found; that entry is skipped'
    ]);
    expect(warnings.join('\n')).not.toContain('just-a-value-xyz');
    expect(secrets).toContain('masked-value-1');
  });

  test('call needs buildx >= 0.15.0, as in docker', () => {
    expect(() => args('0.14.1', new Map([['context', '.'], ['call', 'check'], ...BOOLS]))).toThrow(
      /Input "call": buildx >= 0.15.0 is required.*: update buildx on the runner, set "buildx-version: latest" \(or v0\.15\.0 or later\) to install a newer buildx for the step, or remove "call"/
    );
  });

  test('version gates warn as docker does', () => {
    const env = baseEnv();
    const io = {getInput: (n: string) => ({context: '.', annotations: 'a=b', 'profile-name': 'p'})[n] ?? '', env};
    const parsed = getInputs(io);
    const github = new GitHubContext(env);
    const res = getArgs(parsed, {
      buildxVersion: '0.9.1',
      context: '.',
      defaultContext: GIT,
      github,
      secrets: {envs: [], strings: [], files: []},
      imageIdFile: imageIDFilePath,
      metadataFile: metadataJson,
      buildkitSupportsAttestations: true,
      env
    });
    expect(res.warnings).toEqual([
      "Annotations are only supported by buildx >= 0.12.0; the input 'annotations' is ignored.",
      "Attestations are only supported by buildx >= 0.10.0; the inputs 'attests', 'provenance' and 'sbom' are ignored."
    ]);
  });
});

describe('getInputs', () => {
  const io = (inputs: Record<string, string>, env: NodeJS.ProcessEnv = baseEnv()) => ({
    getInput: (n: string) => (inputs[n] ?? '').trim(),
    env
  });

  test('defaults: docker defaults, the Git context left for renderContext, our timeout', () => {
    const got = getInputs(io({'profile-name': 'p'}));
    expect(got).toMatchObject({
      context: '',
      load: false,
      push: false,
      pull: false,
      'no-cache': false,
      provenance: '',
      timeout: 600000,
      'profile-name': ['p'],
      'api-url': 'https://api.example.test',
      credentials: {token: 'test-key', source: 'env'}
    });
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
    [3, {'profile-name': ''}, /Input "profile-name": is required/],
    [4, {timeout: '10 minutes'}, /Input "timeout"/],
    [5, {'api-url': 'http://api.example.test'}, /Input "api-url".*plain http/]
  ])('[%d] rejects %o before anything is assigned', (_n, override, message) => {
    expect(() => getInputs(io({'profile-name': 'p', ...override}))).toThrow(message);
  });

  test('no default Git context outside a workflow run: context is required', () => {
    expect(() =>
      getInputs(io({'profile-name': 'p'}, {REMOTE_BUILDER_API_URL: 'https://a.test', REMOTE_BUILDER_API_KEY: 'k'}))
    ).toThrow(/Input "context": is required outside a workflow run/);
  });
});
