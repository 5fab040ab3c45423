import {errorMessage} from '../errors.js';
import type {ActionIO, JobSummary} from './action-io.js';
import type {BuildNode, BuildTarget} from './remote-build.js';

/** Where a build ran and how long it waited and built: what every build step's job summary shows. */
export interface BuilderFacts {
  /** Profile the builders came from; undefined for a builder given by the `builder` input. */
  profile?: string;
  builderName: string;
  nodes: BuildNode[];
  /** Assignment → ready, ms; undefined when nothing was assigned. */
  timeToReadyMs?: number;
  buildMs: number;
  /** Set when the build ran on a local fallback builder: why no remote builder could be had. */
  fallback?: string;
}

/** The builder facts of a build that took `buildMs` on `target`. */
export function builderFacts(target: BuildTarget, buildMs: number): BuilderFacts {
  return {
    ...(target.profile !== undefined ? {profile: target.profile} : {}),
    ...(target.fallback !== undefined ? {fallback: target.fallback} : {}),
    builderName: target.name,
    nodes: target.nodes,
    ...(target.timeToReadyMs !== undefined ? {timeToReadyMs: target.timeToReadyMs} : {}),
    buildMs
  };
}

/**
 * Writes a build step's job summary when `enabled` (the step's DOCKER_BUILD_SUMMARY; else says so at debug
 * level); a failure to write it only warns: the build itself succeeded.
 */
export async function writeBuildSummary(
  io: ActionIO,
  action: string,
  enabled: boolean,
  summary: () => JobSummary
): Promise<void> {
  if (!enabled) {
    io.logger.debug(`${action}: DOCKER_BUILD_SUMMARY is false; no job summary`);
    return;
  }
  await io.writeSummary(summary()).catch(e => io.logger.warning(`Failed to write the job summary: ${errorMessage(e)}`));
}
