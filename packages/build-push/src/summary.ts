import type {BuildResult, RunResult} from '@remote-builder-actions/core';

/** What a build records for the step's job summary (post writes it): the builder and the image's digest, id and tags. */
export function imageResult(
  builder: string,
  tags: string[],
  built: Pick<BuildResult, 'digest' | 'imageId'>
): RunResult {
  return {
    builder,
    image: {
      tags,
      digest: built.digest || undefined,
      imageId: built.imageId || undefined
    }
  };
}
