import {parseDockerBool, type ActionIO, type JobSummary} from '@remote-builder-actions/core';

/** One buildx node as the summary shows it. */
export interface SummaryNode {
  builder: string;
  node: string;
  platforms: string[];
}

export interface SummaryFacts {
  /** Profile the builders came from; undefined for a builder given by the `builder` input. */
  profile?: string;
  builderName: string;
  nodes: SummaryNode[];
  /** Assignment → ready, ms; undefined when nothing was assigned. */
  timeToReadyMs?: number;
  buildMs: number;
  tags: string[];
  digest?: string;
  imageId?: string;
}

/**
 * Whether to write our job summary. DOCKER_BUILD_SUMMARY=false turns it off (and the deprecated
 * DOCKER_BUILD_NO_SUMMARY=true), read as docker's action reads them; a value that is not a boolean warns.
 */
export function summaryEnabled(io: Pick<ActionIO, 'env' | 'logger'>): boolean {
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

/** The job summary of one build: where it ran, how long it waited and built, and what it produced. */
export function buildSummary(f: SummaryFacts): JobSummary {
  const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
  const notes = [
    f.profile !== undefined
      ? `Builder profile "${f.profile}"; ready ${f.timeToReadyMs !== undefined ? `after ${seconds(f.timeToReadyMs)}` : ''}.`
      : `Shared builder "${f.builderName}" (builder input): nothing was assigned by this step.`,
    `Build time: ${seconds(f.buildMs)}.`,
    `Tags: ${f.tags.length > 0 ? f.tags.join(', ') : 'none'}.`,
    `Digest: ${f.digest ?? 'none (no image pushed or loaded)'}.`
  ];
  if (f.imageId) notes.push(`Image ID: ${f.imageId}.`);
  return {
    heading: 'Remote build',
    table: [
      ['Builder', 'Node', 'Platforms'],
      ...f.nodes.map(n => [n.builder, n.node, n.platforms.join(', ') || 'not reported'])
    ],
    notes
  };
}
