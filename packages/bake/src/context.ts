import {statSync} from 'node:fs';
import {isAbsolute, join, resolve} from 'node:path';
import {
  BuildStepInput,
  BuildStepOutput,
  GitContextRules,
  GitHubContext,
  InputError,
  checkPositional,
  dockerInputReaders,
  isRemoteBakeRef,
  readBuildStepInputs,
  renderTemplate,
  resolveProvenanceInput,
  type ActionIO,
  type BuildStepInputs
} from '@remote-builder-actions/core/step';

/** Outputs of actions/bake/action.yml: docker's one, then ours. */
export const Output = {
  Metadata: 'metadata',
  ...BuildStepOutput
} as const;
export type Output = (typeof Output)[keyof typeof Output];

/**
 * Inputs of actions/bake/action.yml: ours and docker/bake-action v7.1.0's 14, plus v6's `workdir`
 * (deprecated: v7 folded it into `source`).
 */
export const Input = {
  ...BuildStepInput,
  Workdir: 'workdir',
  Source: 'source',
  Allow: 'allow',
  Call: 'call',
  Files: 'files',
  NoCache: 'no-cache',
  Pull: 'pull',
  Load: 'load',
  Provenance: 'provenance',
  Push: 'push',
  Sbom: 'sbom',
  Set: 'set',
  Targets: 'targets',
  GithubToken: 'github-token'
} as const;
export type Input = (typeof Input)[keyof typeof Input];

/**
 * Where bake runs and what it reads, from `source` as docker/bake-action v7.1.0 reads it (getBakeContext) and
 * the deprecated `workdir`.
 */
export interface BakeSource {
  /**
   * A remote definition (Git or HTTP), bake's positional argument, as given: '' stands for this repository's
   * Git context, and `{{defaultContext}}` is left in place. bake-args' remoteRef renders both once the
   * buildx version is known (the Git context's form depends on it). Absent for a local source.
   */
  remoteRef?: string;
  /** Working directory of both bake calls: a local `source` (under `workdir` when that is set), else `workdir`, else '.'. */
  workdir: string;
}

/** Every input, parsed. Keys are the action.yml names; docker's mean what they mean in docker's action. */
export interface Inputs extends BuildStepInputs {
  /** `source` and `workdir`, resolved. */
  source: BakeSource;
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
}

/**
 * Reads and validates every input the way docker/bake-action v7.1.0 does (context.ts getInputs), plus ours
 * and v6's `workdir`. Everything that can be wrong with the inputs throws InputError here, before anything
 * is assigned.
 */
export function getInputs(io: Pick<ActionIO, 'getInput' | 'env'>): Inputs {
  const {list, bool} = dockerInputReaders<Input>(io);
  const github = new GitHubContext(io.env);
  const files = list(Input.Files);
  const source = resolveSource(io.getInput(Input.Source), io.getInput(Input.Workdir), github);
  checkRemoteDefinitions(files, source, github);

  return {
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
    targets: checkPositional(Input.Targets, list(Input.Targets)),
    'github-token': io.getInput(Input.GithubToken),
    ...readBuildStepInputs(io)
  };
}

/** Deprecation warnings for the inputs given: v6-only inputs still work, and say what replaces them. */
export function inputWarnings(io: Pick<ActionIO, 'getInput'>, inputs: Pick<Inputs, 'source'>): string[] {
  const workdir = io.getInput(Input.Workdir);
  if (workdir === '') return [];
  const fix =
    inputs.source.remoteRef === undefined
      ? `set "${Input.Source}: ${inputs.source.workdir}" instead`
      : `remove it (with a remote "${Input.Source}", v7 runs bake in the step's working directory)`;
  return [
    `Input "${Input.Workdir}" is deprecated: docker/bake-action v7 removed it; ${fix}. Until then bake runs in "${inputs.source.workdir}".`
  ];
}

/** `source` with `{{defaultContext}}` rendered (fragment form), or the Git context when empty; undefined outside a run. */
function renderSource(raw: string, github: GitHubContext): string | undefined {
  const gitContext = github.gitContext({rules: GitContextRules.Bake});
  return renderTemplate(raw, {defaultContext: gitContext}, {escape: false}) || gitContext;
}

/**
 * `source` as docker/bake-action v7.1.0's getBakeContext reads it: `{{defaultContext}}` rendered, this
 * repository's Git context when empty; a remote Git or HTTP definition stays bake's positional argument,
 * anything else is the directory bake runs in, which must exist. The deprecated `workdir` (v6) is the
 * directory a local `source` is taken from, and bake's working directory with a remote one.
 */
export function resolveSource(raw: string, workdirInput: string, github: GitHubContext): BakeSource {
  // Local or remote does not depend on the Git context's form, so the buildx version is not needed here.
  const source = renderSource(raw, github);
  if (source === undefined) {
    throw new InputError(
      Input.Source,
      'is required outside a workflow run (GITHUB_REPOSITORY is not set, so there is no default Git context): set it to "." or to the directory holding the bake files, or to a remote bake definition'
    );
  }
  const base = workdirInput || '.';
  if (isRemoteBakeRef(source)) {
    if (workdirInput !== '') checkDirectory(Input.Workdir, base, `point "${Input.Workdir}" at an existing directory`);
    return {remoteRef: raw, workdir: base};
  }
  const workdir = isAbsolute(source) || base === '.' ? source : join(base, source);
  checkDirectory(
    Input.Source,
    workdir,
    `check the repository out first (actions/checkout), or set "${Input.Source}" to the directory holding the bake files or to a remote Git or HTTP bake definition`
  );
  return {workdir};
}

/** A directory (relative to the step's working directory), or InputError naming the input and the fix. */
function checkDirectory(input: Input, dir: string, fix: string): void {
  let isDir = false;
  try {
    isDir = statSync(resolve(dir)).isDirectory();
  } catch {
    // reported below
  }
  if (!isDir) throw new InputError(input, `"${dir}" does not exist or is not a directory: ${fix}`);
}

/** docker's Bake.getDefinition accepts one remote definition among `files` and `source`. */
function checkRemoteDefinitions(files: string[], source: BakeSource, github: GitHubContext): void {
  const remote = source.remoteRef === undefined ? undefined : renderSource(source.remoteRef, github);
  const remotes = [...files, ...(remote ? [remote] : [])].filter(s => s !== '' && isRemoteBakeRef(s));
  if (remotes.length > 1) {
    const input = files.some(isRemoteBakeRef) ? Input.Files : Input.Source;
    throw new InputError(
      input,
      `only one remote bake definition can be used, got ${remotes.join(' and ')}: ${remote && files.some(isRemoteBakeRef) ? `set "${Input.Source}" to "." or ` : ''}keep one remote definition`
    );
  }
}
