import {
  GitContextRules,
  hasAttestationType,
  hasDockerExporter,
  hasGitAuthTokenSecret,
  hasLocalExporter,
  hasTarExporter,
  noDefaultAttestations,
  renderTemplate,
  resolveAttestationAttrs,
  resolveProvenanceAttrs,
  resolveSecretEnv,
  newerBuildxHint,
  versionAtLeast,
  errorMessage,
  type GitHubContext,
  type Logger,
  type SecretStore
} from '@remote-builder-actions/core/step';
import {Input, type Inputs} from './context.js';

/** `--secret` values, resolved once (secret files written) before the argv is assembled. */
export interface ResolvedSecrets {
  /** From `secret-envs`: `id=KEY,env=NAME`. */
  envs: string[];
  /** From `secrets`: `id=KEY,src=FILE`. */
  strings: string[];
  /** From `secret-files`: `id=KEY,src=FILE` (a private copy). */
  files: string[];
  /** `github-token` as `GIT_AUTH_TOKEN.<host>`, when the build context is this repository's Git context. */
  gitAuth?: string;
}

/** Everything besides the inputs that decides the argv. */
export interface ArgsEnv {
  /** `docker buildx version`, e.g. "0.13.1". */
  buildxVersion: string;
  /** The build context after rendering `{{defaultContext}}` (see renderContext). */
  context: string;
  /** This repository's Git context for this buildx (see defaultGitContext); undefined outside a workflow run. */
  defaultContext: string | undefined;
  github: GitHubContext;
  secrets: ResolvedSecrets;
  imageIdFile: string;
  metadataFile: string;
  /**
   * Whether every node's BuildKit is >= 0.11.0 (docker only then adds the default provenance attestation);
   * false when unknown.
   */
  buildkitSupportsAttestations: boolean;
  /** BUILDX_NO_DEFAULT_ATTESTATIONS and friends. */
  env: NodeJS.ProcessEnv;
}

/** The argv, plus the warnings docker's action would print while building it. */
export interface BuildArgs {
  args: string[];
  warnings: string[];
}

/**
 * This repository's Git context as build-push-action v7.3.0 builds it (actions-toolkit 0.92): the `?ref=`
 * query form when BUILDX_SEND_GIT_QUERY_AS_INPUT=true and buildx >= 0.29.0, else `#<commit>`.
 */
export function defaultGitContext(github: GitHubContext, buildxVersion: string): string | undefined {
  return github.gitContext({rules: GitContextRules.BuildPush, buildxVersion});
}

/**
 * The build context: the `context` input with `{{defaultContext}}` rendered, or the default Git context when
 * that is empty (docker v7.3.0 getInputs). Not HTML-escaped as docker's Handlebars does, which would break the
 * query form (`?ref&#x3D;…`).
 */
export function renderContext(inputs: Pick<Inputs, 'context'>, defaultContext: string | undefined): string {
  return renderTemplate(inputs.context, {defaultContext}, {escape: false}) || (defaultContext ?? '');
}

/**
 * Writes the secret files and returns the `--secret` values, in docker's order. A malformed entry or a
 * missing secret file is skipped with a warning, as docker does; the warning never holds a secret value.
 */
export function resolveSecrets(
  inputs: Inputs,
  context: string,
  defaultContext: string | undefined,
  store: SecretStore,
  github: GitHubContext,
  logger: Logger
): ResolvedSecrets {
  const each = (input: Input, values: string[], resolve: (v: string) => string): string[] => {
    const out: string[] = [];
    for (const v of values) {
      try {
        out.push(resolve(v));
      } catch (e) {
        logger.warning(`Input "${input}": ${errorMessage(e)}; that entry is skipped`);
      }
    }
    return out;
  };
  const resolved: ResolvedSecrets = {
    envs: each(Input.SecretEnvs, inputs['secret-envs'], resolveSecretEnv),
    strings: each(Input.Secrets, inputs.secrets, v => store.resolveString(v)),
    files: each(Input.SecretFiles, inputs['secret-files'], v => store.resolveFile(v))
  };
  const token = inputs['github-token'];
  if (
    token &&
    !hasGitAuthTokenSecret(inputs.secrets) &&
    defaultContext !== undefined &&
    context.startsWith(defaultContext)
  ) {
    const host = new URL(github.serverUrl).host.trimEnd();
    resolved.gitAuth = store.resolveString(`GIT_AUTH_TOKEN.${host}=${token}`);
  }
  return resolved;
}

/**
 * `docker buildx build` argv (without `docker buildx`), flag for flag and in the order docker/build-push-action
 * v7.3.0 builds it (src/context.ts getArgs → getBuildArgs, getCommonArgs, context; the same as v6's), with its
 * buildx version gates. Pure: secrets are resolved beforehand.
 */
export function getArgs(inputs: Inputs, env: ArgsEnv): BuildArgs {
  const warnings: string[] = [];
  const at = (min: string): boolean => versionAtLeast(env.buildxVersion, min);
  const args = ['build'];
  const each = (flag: string, values: string[]): void => values.forEach(v => args.push(flag, v));

  each('--add-host', inputs['add-hosts']);
  each('--allow', inputs.allow);
  if (at('0.12.0')) each('--annotation', inputs.annotations);
  else if (inputs.annotations.length > 0)
    warnings.push("Annotations are only supported by buildx >= 0.12.0; the input 'annotations' is ignored.");
  each('--build-arg', inputs['build-args']);
  if (at('0.8.0')) {
    each(
      '--build-context',
      inputs['build-contexts'].map(c => renderTemplate(c, {defaultContext: env.defaultContext}, {escape: false}))
    );
  } else if (inputs['build-contexts'].length > 0) {
    warnings.push("Build contexts are only supported by buildx >= 0.8.0; the input 'build-contexts' is ignored.");
  }
  each('--cache-from', inputs['cache-from']);
  each('--cache-to', inputs['cache-to']);
  if (inputs.call) {
    if (!at('0.15.0')) {
      throw new Error(
        `Input "call": buildx >= 0.15.0 is required to use the call flag (found ${env.buildxVersion}): update buildx on the runner, ${newerBuildxHint('0.15.0')}, or remove "call"`
      );
    }
    args.push('--call', inputs.call);
  }
  if (inputs['cgroup-parent']) args.push('--cgroup-parent', inputs['cgroup-parent']);
  each('--secret', env.secrets.envs);
  if (inputs.file) args.push('--file', inputs.file);
  if (
    !hasLocalExporter(inputs.outputs) &&
    !hasTarExporter(inputs.outputs) &&
    (inputs.platforms.length === 0 || at('0.4.2'))
  ) {
    args.push('--iidfile', env.imageIdFile);
  }
  each('--label', inputs.labels);
  each('--no-cache-filter', inputs['no-cache-filters']);
  each('--output', inputs.outputs);
  if (inputs.platforms.length > 0) args.push('--platform', inputs.platforms.join(','));
  if (at('0.10.0')) args.push(...attestArgs(inputs, env));
  else
    warnings.push(
      "Attestations are only supported by buildx >= 0.10.0; the inputs 'attests', 'provenance' and 'sbom' are ignored."
    );
  each('--secret', env.secrets.strings);
  each('--secret', env.secrets.files);
  if (env.secrets.gitAuth) args.push('--secret', env.secrets.gitAuth);
  if (inputs['shm-size']) args.push('--shm-size', inputs['shm-size']);
  each('--ssh', inputs.ssh);
  each('--tag', inputs.tags);
  if (inputs.target) args.push('--target', inputs.target);
  each('--ulimit', inputs.ulimit);

  // getCommonArgs
  if (inputs.builder) args.push('--builder', inputs.builder);
  if (inputs.load) args.push('--load');
  if (at('0.6.0')) args.push('--metadata-file', env.metadataFile);
  if (inputs.network) args.push('--network', inputs.network);
  if (inputs['no-cache']) args.push('--no-cache');
  if (inputs.pull) args.push('--pull');
  if (inputs.push) args.push('--push');
  args.push(env.context);
  return {args, warnings};
}

/** docker's getAttestArgs: provenance and sbom inputs win over the same types in `attests`. */
function attestArgs(inputs: Inputs, env: ArgsEnv): string[] {
  const args: string[] = [];
  const runUrl = env.github.workflowRunUrl(true);
  const attestHasProvenance = inputs.attests.some(a => hasAttestationType('provenance', a));
  let provenanceSet = false;
  let sbomSet = false;
  if (inputs.provenance) {
    args.push('--attest', resolveAttestationAttrs(`type=provenance,${inputs.provenance}`));
    provenanceSet = true;
  } else if (
    !attestHasProvenance &&
    !noDefaultAttestations(env.env) &&
    env.buildkitSupportsAttestations &&
    !hasDockerExporter(inputs.outputs, inputs.load)
  ) {
    // buildx's own default for private repositories; max for public ones.
    // https://github.com/docker/buildx/blob/fb27e3f919dcbf614d7126b10c2bc2d0b1927eb6/build/build.go#L603
    const attrs = env.github.repositoryIsPrivate ? 'mode=min,inline-only=true' : 'mode=max';
    args.push('--attest', `type=provenance,${resolveProvenanceAttrs(attrs, runUrl)}`);
  }
  if (inputs.sbom) {
    args.push('--attest', resolveAttestationAttrs(`type=sbom,${inputs.sbom}`));
    sbomSet = true;
  }
  for (const attest of inputs.attests) {
    const isProvenance = hasAttestationType('provenance', attest);
    const isSbom = hasAttestationType('sbom', attest);
    if (!isProvenance && !isSbom) args.push('--attest', resolveAttestationAttrs(attest));
    else if (!provenanceSet && isProvenance) args.push('--attest', resolveProvenanceAttrs(attest, runUrl));
    else if (!sbomSet && isSbom) args.push('--attest', attest);
  }
  return args;
}
