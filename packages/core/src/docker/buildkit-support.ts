import {versionAtLeast} from './version-gate.js';

/**
 * docker's BuildKit.versionSatisfies(builder, '>=0.11.0') over `buildx inspect` nodes: every node must
 * report a BuildKit version that satisfies it (a docker-driver node only with a `-moby` version). docker's
 * actions add their default provenance attestation only then.
 */
export function buildkitSupportsAttestations(nodes: {buildkit?: string}[], driver?: string): boolean {
  return nodes.every(n => {
    const v = n.buildkit;
    if (!v) return false;
    if (driver === 'docker' && !v.endsWith('-moby')) return false;
    return versionAtLeast(v.replace(/-moby$/, ''), '0.11.0');
  });
}

/** BUILDX_NO_DEFAULT_ATTESTATIONS as docker's actions read it (Go's ParseBool truths; anything else is false). */
export function noDefaultAttestations(env: NodeJS.ProcessEnv): boolean {
  const v = env['BUILDX_NO_DEFAULT_ATTESTATIONS'];
  if (!v) return false;
  return ['1', 't', 'T', 'true', 'TRUE', 'True'].includes(v);
}
