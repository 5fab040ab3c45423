import type {BuildNode, BuilderFacts, JobSummary} from '@remote-builder-actions/core';

/** One buildx node as the summary shows it. */
export type SummaryNode = BuildNode;

export interface SummaryFacts extends BuilderFacts {
  tags: string[];
  digest?: string;
  imageId?: string;
}

/** The job summary of one build: where it ran, how long it waited and built, and what it produced. */
export function buildSummary(f: SummaryFacts): JobSummary {
  const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
  const notes = [
    f.fallback !== undefined
      ? `Local fallback builder "${f.builderName}" (docker-container, on this runner): ${f.fallback}.`
      : f.profile !== undefined
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
