import type {ActionIO} from './action-io.js';
import {parseDockerBool} from '../docker/input-list.js';

/**
 * Whether to write the job summary. DOCKER_BUILD_SUMMARY=false turns it off (and the deprecated
 * DOCKER_BUILD_NO_SUMMARY=true), read as docker's build-push and bake actions read them; a value that is
 * not a boolean warns and leaves the summary on.
 */
export function buildSummaryEnabled(io: Pick<ActionIO, 'env' | 'logger'>): boolean {
  const legacy = io.env['DOCKER_BUILD_NO_SUMMARY'];
  const current = io.env['DOCKER_BUILD_SUMMARY'];
  try {
    if (legacy) {
      io.logger.warning('DOCKER_BUILD_NO_SUMMARY is deprecated. Set DOCKER_BUILD_SUMMARY to false instead.');
      return !parseDockerBool(legacy);
    }
    if (current) return parseDockerBool(current);
  } catch {
    io.logger.warning(
      `DOCKER_BUILD_SUMMARY="${current ?? legacy}" is not a boolean (use true or false); writing the job summary`
    );
  }
  return true;
}
