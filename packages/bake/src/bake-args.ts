import {
  GitContextRules,
  bakeHasDockerExporter,
  bakePrintArgs,
  noDefaultAttestations,
  renderTemplate,
  resolveProvenanceAttrs,
  targetHasProvenance,
  newerBuildxHint,
  versionAtLeast,
  type BakeDefinition,
  type GitHubContext
} from '@remote-builder-actions/core/step';
import {Input, type BakeSource, type Inputs} from './context.js';

/** Everything besides the inputs that decides the argv. */
export interface ArgsEnv {
  /** `docker buildx version`, e.g. "0.13.1". */
  buildxVersion: string;
  /** The definition `buildx bake --print` resolved for these inputs. */
  definition: BakeDefinition;
  metadataFile: string;
  github: GitHubContext;
  /**
   * Whether every node's BuildKit is >= 0.11.0 (docker only then adds the default provenance attestation);
   * false when unknown.
   */
  buildkitSupportsAttestations: boolean;
  /** BUILDX_NO_DEFAULT_ATTESTATIONS and friends. */
  env: NodeJS.ProcessEnv;
}

/** The argv, plus the warnings docker's action would not print but we do (ignored inputs). */
export interface BakeArgs {
  args: string[];
  warnings: string[];
}

/** `allow` needs `bake --allow`, which buildx has from 0.17.0 on (older ones fail with "unknown flag"). */
const BAKE_ALLOW_BUILDX = '0.17.0';

/**
 * The remote definition bake gets as its positional argument, or undefined for a local source:
 * `{{defaultContext}}` rendered and '' replaced by this repository's Git context in the form
 * bake-action v7.1.0 gives it on this buildx (actions-toolkit 0.87: `?ref=<ref>&checksum=<sha>` when
 * BUILDX_SEND_GIT_QUERY_AS_INPUT=true and buildx >= 0.29.0, else `#<sha>`). Not HTML-escaped as docker's
 * Handlebars does, which would break the query form.
 */
export function remoteRef(source: BakeSource, env: Pick<ArgsEnv, 'github' | 'buildxVersion'>): string | undefined {
  if (source.remoteRef === undefined) return undefined;
  const defaultContext = env.github.gitContext({rules: GitContextRules.Bake, buildxVersion: env.buildxVersion});
  return renderTemplate(source.remoteRef, {defaultContext}, {escape: false}) || defaultContext;
}

/**
 * `docker buildx bake` argv (without `docker buildx`), flag for flag and in the order docker/bake-action
 * v7.1.0 builds it (src/context.ts getArgs → getBakeArgs, getCommonArgs, targets), with its buildx version
 * gates. The default provenance goes to every target of the definition that has none, as
 * `--set <target>.attest=type=provenance,…` (docker/bake-action#359, in v6.10.0). Pure.
 */
export function getArgs(inputs: Inputs, env: ArgsEnv): BakeArgs {
  const warnings: string[] = [];
  const at = (min: string): boolean => versionAtLeast(env.buildxVersion, min);
  const args = ['bake'];
  const each = (flag: string, values: string[]): void => values.forEach(v => args.push(flag, v));

  const remote = remoteRef(inputs.source, env);
  if (remote) args.push(remote);
  if (at(BAKE_ALLOW_BUILDX)) {
    // docker allows filesystem entitlements by default from buildx 0.18.0 on.
    each('--allow', at('0.18.0') ? [...inputs.allow, 'fs=*'] : inputs.allow);
  } else if (inputs.allow.length > 0) {
    warnings.push(
      `The input '${Input.Allow}' is only supported by buildx >= ${BAKE_ALLOW_BUILDX} (bake --allow); it is ignored.`
    );
  }
  if (inputs.call) {
    if (!at('0.16.0')) {
      throw new Error(
        `Input "${Input.Call}": buildx >= 0.16.0 is required to use the call input (found ${env.buildxVersion}): update buildx on the runner, ${newerBuildxHint('0.16.0')}, or remove "${Input.Call}"`
      );
    }
    args.push('--call', inputs.call);
  }
  each('--file', inputs.files);
  each('--set', inputs.set);
  if (at('0.6.0')) args.push('--metadata-file', env.metadataFile);
  if (at('0.10.0')) {
    if (inputs.provenance) {
      args.push('--provenance', inputs.provenance);
    } else if (
      !noDefaultAttestations(env.env) &&
      env.buildkitSupportsAttestations &&
      !bakeHasDockerExporter(env.definition, inputs.load)
    ) {
      // buildx's own default for private repositories; max for public ones.
      // https://github.com/docker/buildx/blob/fb27e3f919dcbf614d7126b10c2bc2d0b1927eb6/build/build.go#L603
      const attrs = env.github.repositoryIsPrivate ? 'mode=min,inline-only=true' : 'mode=max';
      const provenance = `type=provenance,${resolveProvenanceAttrs(attrs, env.github.workflowRunUrl(true))}`;
      for (const [name, target] of Object.entries(env.definition.target)) {
        if (!targetHasProvenance(target)) args.push('--set', `${name}.attest=${provenance}`);
      }
    }
    if (inputs.sbom) args.push('--sbom', inputs.sbom);
  } else if (inputs.provenance || inputs.sbom) {
    warnings.push(
      `Attestations are only supported by buildx >= 0.10.0; the inputs '${Input.Provenance}' and '${Input.Sbom}' are ignored.`
    );
  }

  // getCommonArgs
  if (inputs['no-cache']) args.push('--no-cache');
  if (inputs.builder) args.push('--builder', inputs.builder);
  if (inputs.pull) args.push('--pull');
  if (inputs.load) args.push('--load');
  if (inputs.push) args.push('--push');
  args.push(...inputs.targets);
  return {args, warnings};
}

/**
 * `docker buildx bake … --print` argv that resolves the definition, as docker's main passes the inputs
 * to Bake.getDefinition (no `--builder`: it needs no builder). `allow` only where buildx has `bake --allow`
 * (docker passes it to every buildx, and buildx < 0.17 fails with "unknown flag: --allow").
 */
export function getPrintArgs(inputs: Inputs, env: Pick<ArgsEnv, 'github' | 'buildxVersion'>): string[] {
  return bakePrintArgs({
    files: inputs.files,
    source: remoteRef(inputs.source, env) ?? '',
    set: inputs.set,
    allow: versionAtLeast(env.buildxVersion, BAKE_ALLOW_BUILDX) ? inputs.allow : [],
    call: inputs.call,
    load: inputs.load,
    noCache: inputs['no-cache'],
    provenance: inputs.provenance,
    push: inputs.push,
    sbom: inputs.sbom,
    targets: inputs.targets
  });
}

/**
 * The token buildx uses for a remote definition: BUILDX_BAKE_GIT_AUTH_TOKEN when the environment sets it,
 * else `github-token` (docker's main: `process.env.BUILDX_BAKE_GIT_AUTH_TOKEN ?? inputs['github-token']`).
 */
export function gitAuthToken(inputs: Pick<Inputs, 'github-token'>, env: NodeJS.ProcessEnv): string {
  return env['BUILDX_BAKE_GIT_AUTH_TOKEN'] ?? inputs['github-token'];
}
