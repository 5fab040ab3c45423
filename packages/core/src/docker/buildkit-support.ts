import satisfies from 'semver/functions/satisfies.js';

/**
 * docker's BuildKit.versionSatisfies(builder, '>=0.11.0') over `buildx inspect` nodes: every node must
 * report a BuildKit version that satisfies it by semver (so "v0.13.0-rc1" does not), a docker-driver node
 * only with a `-moby` version. docker's actions add their default provenance attestation only then.
 * (docker asks a node without a reported version for its image's version; our nodes always report one.)
 */
export function buildkitSupportsAttestations(nodes: {buildkit?: string}[], driver?: string): boolean {
  return buildkitSatisfies(nodes, '>=0.11.0', driver);
}

/** Every node's BuildKit version satisfies `range` (@docker/actions-toolkit BuildKit.versionSatisfies). */
export function buildkitSatisfies(nodes: {buildkit?: string}[], range: string, driver?: string): boolean {
  return nodes.every(n => {
    const v = n.buildkit;
    if (!v) return false;
    // BuildKit in moby reports e.g. `v0.11.0-moby`.
    if (driver === 'docker' && !v.endsWith('-moby')) return false;
    return satisfies(v.replace(/-moby$/, ''), range);
  });
}

/** BUILDX_NO_DEFAULT_ATTESTATIONS as docker's actions read it (Go's ParseBool truths; anything else is false). */
export function noDefaultAttestations(env: NodeJS.ProcessEnv): boolean {
  const v = env['BUILDX_NO_DEFAULT_ATTESTATIONS'];
  if (!v) return false;
  return ['1', 't', 'T', 'true', 'TRUE', 'True'].includes(v);
}
