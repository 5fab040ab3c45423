import {
  targetPlatforms,
  type BakeDefinition,
  type BuildMetadata,
  type TargetResult
} from '@remote-builder-actions/core';

/**
 * What a bake records for the step's job summary (post writes it): each target of the definition with its
 * platforms and the digest the metadata file gave it.
 */
export function targetResults(definition: BakeDefinition, metadata: BuildMetadata | undefined): TargetResult[] {
  return Object.entries(definition.target).map(([name, target]) => {
    const entry = metadata?.[name];
    const digest =
      entry && typeof entry === 'object' ? (entry as Record<string, unknown>)['containerimage.digest'] : undefined;
    return {name, platforms: targetPlatforms(target), digest: typeof digest === 'string' ? digest : undefined};
  });
}
