import {FALLBACK_BUILDER_STATE} from '../lifecycle/local-fallback.js';
import {State, type StateStore} from '../state.js';
import {BuildStepState} from './action-inputs.js';
import {BuildxInstallState} from './step-buildx.js';

/** Every state key a post step reads. A key added for post belongs here. */
export const POST_STATE_KEYS: readonly string[] = [
  State.Builder,
  State.Run,
  BuildStepState.TmpDir,
  BuildxInstallState.DockerConfig,
  FALLBACK_BUILDER_STATE
];

/**
 * Writes every key post reads, empty, at main's start. The runner still honours `save-state` printed in the log
 * (deprecated, not removed) and applies GITHUB_STATE after it: with each key in main's file, a value planted
 * in the log never reaches post, whatever main wrote later.
 */
export function claimPostState(state: StateStore, keys: readonly string[] = POST_STATE_KEYS): void {
  for (const key of keys) state.save(key, '');
}
