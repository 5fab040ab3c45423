import type {BuildResult, RunResult, SummaryInputsSpec} from '@remote-builder-actions/core/step';
import {Input} from './context.js';

/** Lists split as getInputs splits them (docker shows each item). */
const COMMA = {};
const LINES = {ignoreComma: true};

/**
 * The inputs docker's "Build inputs" section shows, read by post (readSummaryInputs): every input, `secrets` by
 * their keys only, the API key and github-token never.
 */
export const SUMMARY_INPUTS: SummaryInputsSpec = {
  names: Object.values(Input),
  lists: {
    [Input.AddHosts]: COMMA,
    [Input.Allow]: COMMA,
    [Input.Annotations]: LINES,
    [Input.Attests]: LINES,
    [Input.BuildArgs]: LINES,
    [Input.BuildContexts]: LINES,
    [Input.CacheFrom]: LINES,
    [Input.CacheTo]: LINES,
    [Input.Labels]: LINES,
    [Input.NoCacheFilters]: COMMA,
    [Input.Outputs]: {ignoreComma: true, quote: false},
    [Input.Platforms]: COMMA,
    [Input.SecretEnvs]: COMMA,
    [Input.SecretFiles]: LINES,
    [Input.Ssh]: COMMA,
    [Input.Tags]: COMMA,
    [Input.Ulimit]: LINES
  },
  hidden: [Input.ApiKey, Input.GithubToken],
  secretKeys: [Input.Secrets]
};

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
