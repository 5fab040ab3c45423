import {
  targetPlatforms,
  type BakeDefinition,
  type BuildMetadata,
  type BuilderFacts,
  type JobSummary
} from '@remote-builder-actions/core';

export interface BakeSummaryFacts extends BuilderFacts {
  definition: BakeDefinition;
  metadata?: BuildMetadata;
}

/** The job summary of one bake: every target with its platforms and digest, where it ran and how long it took. */
export function bakeSummary(f: BakeSummaryFacts): JobSummary {
  const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
  const rows = Object.entries(f.definition.target).map(([name, target]) => {
    const platforms = targetPlatforms(target);
    const entry = f.metadata?.[name];
    const digest =
      entry && typeof entry === 'object' ? (entry as Record<string, unknown>)['containerimage.digest'] : undefined;
    return [
      name,
      platforms.length > 0 ? platforms.join(', ') : "builder's default",
      typeof digest === 'string' ? digest : 'none'
    ];
  });
  const nodes = f.nodes.map(n => `${n.node} (${n.platforms.join(', ') || 'platforms not reported'})`).join('; ');
  return {
    heading: 'Remote bake',
    table: [['Target', 'Platforms', 'Digest'], ...rows],
    notes: [
      f.fallback !== undefined
        ? `Local fallback builder "${f.builderName}" (docker-container, on this runner): ${f.fallback}.`
        : f.profile !== undefined
          ? `Builder profile "${f.profile}"; ready${f.timeToReadyMs !== undefined ? ` after ${seconds(f.timeToReadyMs)}` : ''}.`
          : `Shared builder "${f.builderName}" (builder input): nothing was assigned by this step.`,
      `Builder "${f.builderName}", nodes: ${nodes || 'none reported'}.`,
      `Build time: ${seconds(f.buildMs)}.`
    ]
  };
}
