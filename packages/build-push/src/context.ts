import {
  GitHubContext,
  InputError,
  parseBooleanInput,
  parseBuilderSizeInput,
  parseFallbackMode,
  parseRetries,
  parseInputList,
  parseProfileNames,
  parseTimeoutMs,
  resolveApiUrl,
  resolveCredentials,
  resolveProvenanceInput,
  type ActionIO,
  type BuilderSize,
  type Credentials,
  type FallbackMode
} from '@remote-builder-actions/core';

/** Inputs of actions/build-push/action.yml: docker/build-push-action v6's 33, then ours. */
export enum Input {
  AddHosts = 'add-hosts',
  Allow = 'allow',
  Annotations = 'annotations',
  Attests = 'attests',
  BuildArgs = 'build-args',
  BuildContexts = 'build-contexts',
  Builder = 'builder',
  CacheFrom = 'cache-from',
  CacheTo = 'cache-to',
  Call = 'call',
  CgroupParent = 'cgroup-parent',
  Context = 'context',
  File = 'file',
  Labels = 'labels',
  Load = 'load',
  Network = 'network',
  NoCache = 'no-cache',
  NoCacheFilters = 'no-cache-filters',
  Outputs = 'outputs',
  Platforms = 'platforms',
  Provenance = 'provenance',
  Pull = 'pull',
  Push = 'push',
  Sbom = 'sbom',
  Secrets = 'secrets',
  SecretEnvs = 'secret-envs',
  SecretFiles = 'secret-files',
  ShmSize = 'shm-size',
  Ssh = 'ssh',
  Tags = 'tags',
  Target = 'target',
  Ulimit = 'ulimit',
  GithubToken = 'github-token',
  ProfileName = 'profile-name',
  ApiKey = 'api-key',
  ApiUrl = 'api-url',
  Timeout = 'timeout',
  Fallback = 'fallback',
  Retries = 'retries',
  BuilderSize = 'builder-size'
}

/** Outputs of actions/build-push/action.yml: docker's three, then ours. */
export enum Output {
  ImageId = 'imageid',
  Digest = 'digest',
  Metadata = 'metadata',
  Attempts = 'attempts',
  TimeToReady = 'time-to-ready',
  CachedSteps = 'cached-steps',
  CacheRatio = 'cache-ratio'
}

/** State keys of this action besides core's State.Builder. */
export enum State {
  /** The private folder holding the iidfile, the metadata file and the secret files. */
  TmpDir = 'tmpDir'
}

/** Default `timeout` of build-push (spec §4.6): 10 minutes. */
export const DEFAULT_TIMEOUT_MS = 600000;

/** Every input, parsed. Keys are the action.yml names; the first 33 mean what they mean in docker's action. */
export interface Inputs {
  'add-hosts': string[];
  allow: string[];
  annotations: string[];
  attests: string[];
  'build-args': string[];
  'build-contexts': string[];
  builder: string;
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
  /** [] when `builder` is set: no builder is assigned then. */
  'profile-name': string[];
  /** '' when `builder` is set. */
  'api-url': string;
  timeout: number;
  /** What to do when no remote builder can be had: fail, or build on a local builder. */
  fallback: FallbackMode;
  /** Extra builds after an infrastructure failure. */
  retries: number;
  /** The builders' size for the cost in the summary, when given. */
  'builder-size'?: BuilderSize;
  /** Undefined when `builder` is set. */
  credentials?: Credentials;
}

/**
 * Reads and validates every input the way docker/build-push-action v6 does (context.ts getInputs), plus
 * ours. Everything that can be wrong with the inputs throws InputError here, before anything is assigned.
 */
export function getInputs(io: Pick<ActionIO, 'getInput' | 'env'>): Inputs {
  const list = (name: Input, opts: Parameters<typeof parseInputList>[1] = {}): string[] =>
    parseInputList(io.getInput(name), opts);
  const bool = (name: Input): boolean => parseBooleanInput(io.getInput(name), false, name);
  const github = new GitHubContext(io.env);
  const builder = io.getInput(Input.Builder);
  const remote = builder === '';

  return {
    'add-hosts': list(Input.AddHosts),
    allow: list(Input.Allow),
    annotations: list(Input.Annotations, {ignoreComma: true}),
    attests: list(Input.Attests, {ignoreComma: true}),
    'build-args': list(Input.BuildArgs, {ignoreComma: true}),
    'build-contexts': list(Input.BuildContexts, {ignoreComma: true}),
    builder,
    'cache-from': list(Input.CacheFrom, {ignoreComma: true}),
    'cache-to': list(Input.CacheTo, {ignoreComma: true}),
    call: checkCall(io.getInput(Input.Call)),
    'cgroup-parent': io.getInput(Input.CgroupParent),
    context: io.getInput(Input.Context) || defaultContext(github),
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
    secrets: list(Input.Secrets, {ignoreComma: true}),
    'secret-envs': list(Input.SecretEnvs),
    'secret-files': list(Input.SecretFiles, {ignoreComma: true}),
    'shm-size': io.getInput(Input.ShmSize),
    ssh: list(Input.Ssh),
    tags: list(Input.Tags),
    target: io.getInput(Input.Target),
    ulimit: list(Input.Ulimit, {ignoreComma: true}),
    'github-token': io.getInput(Input.GithubToken),
    'profile-name': remote ? parseProfileNames(io.getInput(Input.ProfileName), Input.ProfileName) : [],
    'api-url': remote ? resolveApiUrl(io.getInput(Input.ApiUrl), io.env, Input.ApiUrl) : '',
    timeout: parseTimeoutMs(io.getInput(Input.Timeout), DEFAULT_TIMEOUT_MS, Input.Timeout),
    fallback: parseFallbackMode(io.getInput(Input.Fallback), Input.Fallback),
    retries: parseRetries(io.getInput(Input.Retries), Input.Retries),
    ...optionalSize(parseBuilderSizeInput(io.getInput(Input.BuilderSize), Input.BuilderSize)),
    ...(remote ? {credentials: resolveCredentials(io.getInput(Input.ApiKey), io.env, Input.ApiKey)} : {})
  };
}

function defaultContext(github: GitHubContext): string {
  const context = github.gitContext();
  if (context === undefined) {
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

/** Operating systems and architectures containerd knows, for one-part platforms ("arm64" means linux/arm64). */
const KNOWN_OS = [
  'aix',
  'android',
  'darwin',
  'dragonfly',
  'freebsd',
  'hurd',
  'illumos',
  'ios',
  'js',
  'linux',
  'nacl',
  'netbsd',
  'openbsd',
  'plan9',
  'solaris',
  'windows',
  'zos'
];
const KNOWN_ARCH = [
  '386',
  'amd64',
  'amd64p32',
  'arm',
  'armbe',
  'arm64',
  'arm64be',
  'ppc64',
  'ppc64le',
  'loong64',
  'mips',
  'mipsle',
  'mips64',
  'mips64le',
  'mips64p32',
  'mips64p32le',
  'ppc',
  'riscv',
  'riscv64',
  's390',
  's390x',
  'sparc',
  'sparc64',
  'wasm',
  'aarch64',
  'x86_64',
  'x86-64',
  'i386',
  'armhf',
  'armel'
];

/**
 * Checks each platform the way buildx parses `--platform` (containerd platforms.Parse): `local`, or
 * `os[/arch[/variant]]` with components of letters, digits, `_` and `-`; a single component must be a known
 * OS or architecture. Whether the builder offers the platform is checked once it is ready.
 */
function checkPlatforms(platforms: string[]): string[] {
  for (const p of platforms) {
    if (p === 'local') continue;
    const parts = p.split('/');
    const bad =
      parts.length > 3 ||
      parts.some(c => !/^[A-Za-z0-9_-]+$/.test(c)) ||
      (parts.length === 1 && !KNOWN_OS.includes(p.toLowerCase()) && !KNOWN_ARCH.includes(p.toLowerCase()));
    if (bad) {
      throw new InputError(
        Input.Platforms,
        `"${p}" is not a platform: use os/arch[/variant], e.g. linux/amd64 or linux/arm64, separated by commas or new lines`
      );
    }
  }
  return platforms;
}

function optionalSize(size: BuilderSize | undefined): {'builder-size'?: BuilderSize} {
  return size ? {'builder-size': size} : {};
}
