import {
  targetPlatforms,
  type BakeDefinition,
  type BuildMetadata,
  type SummaryInputsSpec,
  type TargetResult
} from '@remote-builder-actions/core/step';
import {Input} from './context.js';

/**
 * The inputs docker's "Build inputs" section shows, read by post (readSummaryInputs): every input, lists item
 * by item as getInputs splits them, the API key and github-token never.
 */
export const SUMMARY_INPUTS: SummaryInputsSpec = {
  names: Object.values(Input),
  lists: {
    [Input.Allow]: {},
    [Input.Files]: {},
    [Input.Set]: {ignoreComma: true, quote: false},
    [Input.Targets]: {}
  },
  hidden: [Input.ApiKey, Input.GithubToken]
};

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
