import {statSync} from 'node:fs';
import {resolve} from 'node:path';
import {
  BuildStepInput,
  BuildStepOutput,
  GitHubContext,
  InputError,
  dockerInputReaders,
  isRemoteBakeRef,
  readBuildStepInputs,
  renderTemplate,
  resolveProvenanceInput,
  type ActionIO,
  type BuildStepInputs
} from '@remote-builder-actions/core';

/** Outputs of actions/bake/action.yml: docker's one, then ours. */
export const Output = {
  Metadata: 'metadata',
  ...BuildStepOutput
} as const;
export type Output = (typeof Output)[keyof typeof Output];

/** Inputs of actions/bake/action.yml: ours and docker/bake-action v6's 15. */
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

/** Every input, parsed. Keys are the action.yml names; the first 15 mean what they mean in docker's action. */
export interface Inputs extends BuildStepInputs {
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
}

/**
 * Reads and validates every input the way docker/bake-action v6 does (context.ts getInputs), plus ours.
 * Everything that can be wrong with the inputs throws InputError here, before anything is assigned.
 */
export function getInputs(io: Pick<ActionIO, 'getInput' | 'env'>): Inputs {
  const {list, bool} = dockerInputReaders<Input>(io);
  const github = new GitHubContext(io.env);
  const files = list(Input.Files);
  const source = resolveSource(io.getInput(Input.Source), github);
  checkRemoteDefinitions(files, source);

  return {
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
    ...readBuildStepInputs(io)
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
