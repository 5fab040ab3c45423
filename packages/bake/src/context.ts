import {statSync} from 'node:fs';
import {resolve} from 'node:path';
import {
  GitHubContext,
  InputError,
  isRemoteBakeRef,
  parseBooleanInput,
  parseBuilderSizeInput,
  parseFallbackMode,
  parseRetries,
  parseInputList,
  parseProfileNames,
  parseTimeoutMs,
  renderTemplate,
  resolveApiUrl,
  resolveCredentials,
  resolveProvenanceInput,
  type ActionIO,
  type BuilderSize,
  type Credentials,
  type FallbackMode
} from '@remote-builder-actions/core';

/** Inputs of actions/bake/action.yml: docker/bake-action v6's 15, then ours. */
export enum Input {
  Builder = 'builder',
  Workdir = 'workdir',
  Source = 'source',
  Allow = 'allow',
  Call = 'call',
  Files = 'files',
  NoCache = 'no-cache',
  Pull = 'pull',
  Load = 'load',
  Provenance = 'provenance',
  Push = 'push',
  Sbom = 'sbom',
  Set = 'set',
  Targets = 'targets',
  GithubToken = 'github-token',
  ProfileName = 'profile-name',
  ApiKey = 'api-key',
  ApiUrl = 'api-url',
  Timeout = 'timeout',
  Fallback = 'fallback',
  Retries = 'retries',
  BuilderSize = 'builder-size'
}

/** Outputs of actions/bake/action.yml: docker's one, then ours. */
export enum Output {
  Metadata = 'metadata',
  Attempts = 'attempts',
  TimeToReady = 'time-to-ready',
  CachedSteps = 'cached-steps',
  CacheRatio = 'cache-ratio'
}

/** State keys of this action besides core's State.Builder. */
export enum State {
  /** The private folder holding the metadata file. */
  TmpDir = 'tmpDir'
}

/** Default `timeout` of bake (spec §4.6): 10 minutes. */
export const DEFAULT_TIMEOUT_MS = 600000;

/** Every input, parsed. Keys are the action.yml names; the first 15 mean what they mean in docker's action. */
export interface Inputs {
  builder: string;
  /** Working directory of both bake calls; '.' by default. */
  workdir: string;
  /**
   * The bake source as docker v6 computes it: `{{defaultContext}}` rendered, this repository's Git context
   * when empty, '' for the local definition ('.').
   */
  source: string;
  allow: string[];
  call: string;
  files: string[];
  'no-cache': boolean;
  pull: boolean;
  load: boolean;
  provenance: string;
  push: boolean;
  sbom: string;
  set: string[];
  targets: string[];
  'github-token': string;
  /** [] when `builder` is set: no builder is assigned then. */
  'profile-name': string[];
  /** '' when `builder` is set. */
  'api-url': string;
  timeout: number;
  /** When no remote builder can be had for service reasons: fail (`none`) or bake on a local builder (`local`). */
  fallback: FallbackMode;
  /** Extra builds after an infrastructure failure. */
  retries: number;
  /** The builders' size for the cost in the summary, when given. */
  'builder-size'?: BuilderSize;
  /** Undefined when `builder` is set. */
  credentials?: Credentials;
}

/**
 * Reads and validates every input the way docker/bake-action v6 does (context.ts getInputs), plus ours.
 * Everything that can be wrong with the inputs throws InputError here, before anything is assigned.
 */
export function getInputs(io: Pick<ActionIO, 'getInput' | 'env'>): Inputs {
  const list = (name: Input, opts: Parameters<typeof parseInputList>[1] = {}): string[] =>
    parseInputList(io.getInput(name), opts);
  const bool = (name: Input): boolean => parseBooleanInput(io.getInput(name), false, name);
  const github = new GitHubContext(io.env);
  const builder = io.getInput(Input.Builder);
  const remote = builder === '';
  const files = list(Input.Files);
  const source = resolveSource(io.getInput(Input.Source), github);
  checkRemoteDefinitions(files, source);

  return {
    builder,
    workdir: resolveWorkdir(io.getInput(Input.Workdir)),
    source,
    allow: list(Input.Allow),
    call: io.getInput(Input.Call),
    files,
    'no-cache': bool(Input.NoCache),
    pull: bool(Input.Pull),
    load: bool(Input.Load),
    provenance: resolveProvenanceInput(io.getInput(Input.Provenance), github.workflowRunUrl(true)),
    push: bool(Input.Push),
    sbom: io.getInput(Input.Sbom),
    set: list(Input.Set, {ignoreComma: true, quote: false}),
    targets: list(Input.Targets),
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

/**
 * docker v6's getSourceInput: `{{defaultContext}}` is rendered; empty means this repository's Git context
 * (a remote definition: no checkout needed); '.' means the local definition in `workdir`.
 */
export function resolveSource(raw: string, github: GitHubContext): string {
  const gitContext = github.gitContext();
  let source = renderTemplate(raw, {defaultContext: gitContext});
  if (source === '') {
    if (gitContext === undefined) {
      throw new InputError(
        Input.Source,
        'is required outside a workflow run (GITHUB_REPOSITORY is not set, so there is no default Git context): set it to "." to use the bake files in "workdir", or to a remote bake definition'
      );
    }
    source = gitContext;
  }
  return source === '.' ? '' : source;
}

function resolveWorkdir(raw: string): string {
  const workdir = raw || '.';
  let isDir = false;
  try {
    isDir = statSync(resolve(workdir)).isDirectory();
  } catch {
    // reported below
  }
  if (!isDir) {
    throw new InputError(
      Input.Workdir,
      `"${workdir}" is not a directory: check it out first (actions/checkout) or point "${Input.Workdir}" at the folder holding the bake files`
    );
  }
  return workdir;
}

/** docker's Bake.getDefinition accepts one remote definition among `files` and `source`. */
function checkRemoteDefinitions(files: string[], source: string): void {
  const remotes = [...files, source].filter(s => s !== '' && isRemoteBakeRef(s));
  if (remotes.length > 1) {
    const input = files.some(isRemoteBakeRef) ? Input.Files : Input.Source;
    throw new InputError(
      input,
      `only one remote bake definition can be used, got ${remotes.join(' and ')}: ${source !== '' && files.some(isRemoteBakeRef) ? `set "${Input.Source}" to "." or ` : ''}keep one remote definition`
    );
  }
}

function optionalSize(size: BuilderSize | undefined): {'builder-size'?: BuilderSize} {
  return size ? {'builder-size': size} : {};
}
