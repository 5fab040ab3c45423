import {
  BuildStepInput,
  BuildStepOutput,
  GitHubContext,
  InputError,
  checkPlatformNames,
  checkPositional,
  dockerInputReaders,
  parseInputList,
  readBuildStepInputs,
  resolveProvenanceInput,
  untrimmedInput,
  type ActionIO,
  type BuildStepInputs
} from '@remote-builder-actions/core/step';

/** Inputs of actions/build-push/action.yml: docker/build-push-action's 33 (the same in v6 and v7), then ours. */
export const Input = {
  AddHosts: 'add-hosts',
  Allow: 'allow',
  Annotations: 'annotations',
  Attests: 'attests',
  BuildArgs: 'build-args',
  BuildContexts: 'build-contexts',
  CacheFrom: 'cache-from',
  CacheTo: 'cache-to',
  Call: 'call',
  CgroupParent: 'cgroup-parent',
  Context: 'context',
  File: 'file',
  Labels: 'labels',
  Load: 'load',
  Network: 'network',
  NoCache: 'no-cache',
  NoCacheFilters: 'no-cache-filters',
  Outputs: 'outputs',
  Platforms: 'platforms',
  Provenance: 'provenance',
  Pull: 'pull',
  Push: 'push',
  Sbom: 'sbom',
  Secrets: 'secrets',
  SecretEnvs: 'secret-envs',
  SecretFiles: 'secret-files',
  ShmSize: 'shm-size',
  Ssh: 'ssh',
  Tags: 'tags',
  Target: 'target',
  Ulimit: 'ulimit',
  GithubToken: 'github-token',
  ...BuildStepInput
} as const;
export type Input = (typeof Input)[keyof typeof Input];

/** Outputs of actions/build-push/action.yml: docker's three, then ours. */
export const Output = {
  ImageId: 'imageid',
  Digest: 'digest',
  Metadata: 'metadata',
  ...BuildStepOutput
} as const;
export type Output = (typeof Output)[keyof typeof Output];

/**
 * Every input, parsed. Keys are the action.yml names; the first 33 mean what they mean in docker's action,
 * except `context`: the input as given ('' for the default Git context), rendered by build-args'
 * renderContext once the buildx version is known (the default's form depends on it).
 */
export interface Inputs extends BuildStepInputs {
  'add-hosts': string[];
  allow: string[];
  annotations: string[];
  attests: string[];
  'build-args': string[];
  'build-contexts': string[];
  'cache-from': string[];
  'cache-to': string[];
  call: string;
  'cgroup-parent': string;
  context: string;
  file: string;
  labels: string[];
  load: boolean;
  network: string;
  'no-cache': boolean;
  'no-cache-filters': string[];
  outputs: string[];
  platforms: string[];
  provenance: string;
  pull: boolean;
  push: boolean;
  sbom: string;
  secrets: string[];
  'secret-envs': string[];
  'secret-files': string[];
  'shm-size': string;
  ssh: string[];
  tags: string[];
  target: string;
  ulimit: string[];
  'github-token': string;
}

/**
 * Reads and validates every input the way docker/build-push-action v7.3.0 does (context.ts getInputs), plus
 * ours. Everything that can be wrong with the inputs throws InputError here, before anything is assigned.
 */
export function getInputs(io: Pick<ActionIO, 'getInput' | 'env'>): Inputs {
  const {list, bool} = dockerInputReaders<Input>(io);
  const github = new GitHubContext(io.env);

  return {
    'add-hosts': list(Input.AddHosts),
    allow: list(Input.Allow),
    annotations: list(Input.Annotations, {ignoreComma: true}),
    attests: list(Input.Attests, {ignoreComma: true}),
    'build-args': list(Input.BuildArgs, {ignoreComma: true}),
    'build-contexts': list(Input.BuildContexts, {ignoreComma: true}),
    'cache-from': list(Input.CacheFrom, {ignoreComma: true}),
    'cache-to': list(Input.CacheTo, {ignoreComma: true}),
    call: checkCall(io.getInput(Input.Call)),
    'cgroup-parent': io.getInput(Input.CgroupParent),
    context: checkPositional(Input.Context, checkContext(io.getInput(Input.Context), github)),
    file: io.getInput(Input.File),
    labels: list(Input.Labels, {ignoreComma: true}),
    load: bool(Input.Load),
    network: io.getInput(Input.Network),
    'no-cache': bool(Input.NoCache),
    'no-cache-filters': list(Input.NoCacheFilters),
    outputs: list(Input.Outputs, {ignoreComma: true, quote: false}),
    platforms: checkPlatforms(list(Input.Platforms)),
    provenance: resolveProvenanceInput(io.getInput(Input.Provenance), github.workflowRunUrl(true)),
    pull: bool(Input.Pull),
    push: bool(Input.Push),
    sbom: io.getInput(Input.Sbom),
    // v7.3.0: values keep trailing whitespace and blank lines (a PEM key's final newline); only `secrets`.
    secrets: parseInputList(untrimmedInput(io, Input.Secrets), {ignoreComma: true, trimWhitespace: false}),
    'secret-envs': list(Input.SecretEnvs),
    'secret-files': list(Input.SecretFiles, {ignoreComma: true}),
    'shm-size': io.getInput(Input.ShmSize),
    ssh: list(Input.Ssh),
    tags: list(Input.Tags),
    target: io.getInput(Input.Target),
    ulimit: list(Input.Ulimit, {ignoreComma: true}),
    'github-token': io.getInput(Input.GithubToken),
    ...readBuildStepInputs(io)
  };
}

/** An empty `context` means this repository's Git context, which only a workflow run has. */
function checkContext(context: string, github: GitHubContext): string {
  if (context === '' && github.repository === undefined) {
    throw new InputError(
      Input.Context,
      'is required outside a workflow run (GITHUB_REPOSITORY is not set, so there is no default Git context): set it to a path such as "."'
    );
  }
  return context;
}

/** `--call` methods buildx knows (commands/build.go printResult; `check` is an alias of `lint`). */
export const CALL_METHODS = ['build', 'check', 'lint', 'outline', 'targets', 'subrequests.describe'];

/**
 * Checks `call` the way buildx's ParseCallFunc reads it: a method, optionally with `format=…` and
 * `ignorestatus=<bool>` fields. buildx itself passes an unknown method on to BuildKit, which fails only once
 * the build has started on a builder; this fails before anything is assigned.
 */
function checkCall(raw: string): string {
  const value = raw.trim();
  if (value === '') return '';
  let method = '';
  for (const field of value.split(',').map(f => f.trim())) {
    const eq = field.indexOf('=');
    if (eq < 0) {
      if (method !== '')
        throw new InputError(Input.Call, `"${raw}" names two methods: use one of ${CALL_METHODS.join(', ')}`);
      method = field;
    } else if (field.slice(0, eq) === 'ignorestatus') {
      if (!/^(true|false|1|0|t|f)$/i.test(field.slice(eq + 1))) {
        throw new InputError(Input.Call, `"${field}" is not a boolean: use ignorestatus=true or ignorestatus=false`);
      }
    } else if (field.slice(0, eq) !== 'format') {
      throw new InputError(Input.Call, `"${field}" is not a field of call: use format=json or ignorestatus=true`);
    }
  }
  if (!CALL_METHODS.includes(method)) {
    throw new InputError(
      Input.Call,
      `"${method || raw}" is not a build method: use ${CALL_METHODS.filter(m => m !== 'lint' && m !== 'subrequests.describe').join(', ')} (or leave it empty to build)`
    );
  }
  return value;
}

/** Checks each platform's form (see core's malformedPlatform) before anything is assigned. */
function checkPlatforms(platforms: string[]): string[] {
  checkPlatformNames(platforms, Input.Platforms);
  return platforms;
}
