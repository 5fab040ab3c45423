import type {ActionIO} from '../adapters/action-io.js';
import {parseDockerBool} from '../docker/input-list.js';

/**
 * Variables docker's v7 actions removed: no longer read (as in v7), and each one set is warned about (v7 is
 * silent), naming what replaces it.
 */
const REMOVED: [name: string, instead: string][] = [
  ['DOCKER_BUILD_NO_SUMMARY', 'set DOCKER_BUILD_SUMMARY=false instead'],
  [
    'DOCKER_BUILD_EXPORT_RETENTION_DAYS',
    "set DOCKER_BUILD_RECORD_RETENTION_DAYS instead (the build record artifact's retention in days)"
  ],
  ['DOCKER_BUILD_EXPORT_LEGACY', 'there is no replacement: remove it']
];

/**
 * Whether to write the job summary: DOCKER_BUILD_SUMMARY=false turns it off, read as docker's v7 build-push
 * and bake actions read it; a value that is not a boolean warns and leaves the summary on. The variables v7
 * removed are ignored, with a warning each.
 */
export function buildSummaryEnabled(io: Pick<ActionIO, 'env' | 'logger'>): boolean {
  for (const [name, instead] of REMOVED) {
    if (io.env[name]) io.logger.warning(`${name} is ignored: docker's actions v7 removed it; ${instead}.`);
  }
  const current = io.env['DOCKER_BUILD_SUMMARY'];
  if (!current) return true;
  try {
    return parseDockerBool(current);
  } catch {
    io.logger.warning(
      `DOCKER_BUILD_SUMMARY="${current}" is not a boolean (use true or false); writing the job summary`
    );
    return true;
  }
}
