import {unionPlatforms} from '../buildx/platforms.js';
import {buildkitSupportsAttestations} from '../docker/buildkit-support.js';
import {parseBuilderInspect, type InspectedBuilder} from '../docker/builder-inspect.js';
import type {ProvisionedBuilder} from '../lifecycle/builder-lifecycle.js';

/** One buildx node of the builder a build runs on. */
export interface BuildNode {
  builder: string;
  node: string;
  platforms: string[];
}

/** The builder a build runs on, once it is ready. */
export interface BuildTarget {
  /** buildx builder name (the `--builder` value). */
  name: string;
  nodes: BuildNode[];
  inspect: InspectedBuilder;
  /** Profile the builders came from; undefined for a builder given by the `builder` input. */
  profile?: string;
  /** Assignment → ready, ms; undefined when nothing was assigned. */
  timeToReadyMs?: number;
  /** Set when the build runs on a local fallback builder: why no remote builder could be had. */
  fallback?: string;
}

/** The buildx builder provision made, as the build sees it: the service's platforms and buildx's, per node. */
export function assignedTarget(builder: ProvisionedBuilder, inspected: InspectedBuilder | undefined): BuildTarget {
  const inspect = inspected ?? {nodes: []};
  return {
    name: builder.name,
    profile: builder.profile,
    timeToReadyMs: builder.timeToReadyMs,
    inspect,
    nodes: builder.nodes.map(n => ({
      builder: builder.name,
      node: n.name,
      platforms: unionPlatforms([n.platforms, inspect.nodes.find(i => i.name === n.name)?.platforms ?? []])
    }))
  };
}

/** A builder this step did not assign (the `builder` input, a local fallback), from `buildx inspect --bootstrap`. */
export function inspectedTarget(name: string, inspectOutput: string, fallback?: string): BuildTarget {
  const inspect = parseBuilderInspect(inspectOutput);
  return {
    name,
    inspect,
    nodes: inspect.nodes.map(n => ({builder: name, node: n.name, platforms: n.platforms})),
    fallback
  };
}

/** Whether every node of the target runs a BuildKit that takes attestations (false when none reports one). */
export function targetSupportsAttestations(target: BuildTarget): boolean {
  return target.inspect.nodes.length > 0 && buildkitSupportsAttestations(target.inspect.nodes, target.inspect.driver);
}
