/** One node of `docker buildx inspect` output. */
export interface InspectNode {
  name: string;
  endpoint?: string;
  status?: string;
  /** BuildKit version, e.g. "v0.13.2". */
  buildkit?: string;
  /** The node's platforms; only the preferred ones (marked `*`) when any is marked. */
  platforms: string[];
}

export interface InspectedBuilder {
  name?: string;
  driver?: string;
  nodes: InspectNode[];
}

/**
 * Parses `docker buildx inspect [--bootstrap]` output (buildx 0.10 to 0.2x), like docker's
 * Builder.parseInspect: the first `Name:` is the builder, each later one starts a node.
 */
export function parseBuilderInspect(output: string): InspectedBuilder {
  const builder: InspectedBuilder = {nodes: []};
  let node: InspectNode | undefined;
  let sawBuilderName = false;
  for (const line of output.split('\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const key = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    switch (key) {
      case 'name':
        if (!sawBuilderName) {
          builder.name = value;
          sawBuilderName = true;
        } else {
          node = {name: value, platforms: []};
          builder.nodes.push(node);
        }
        break;
      case 'driver':
        builder.driver = value;
        break;
      case 'endpoint':
        if (node) node.endpoint = value;
        break;
      case 'status':
        if (node) node.status = value;
        break;
      case 'buildkit version':
      case 'buildkit': // buildx < 0.13
        if (node) node.buildkit = value;
        break;
      case 'platforms':
        if (node) node.platforms = parseInspectPlatforms(value);
        break;
    }
  }
  return builder;
}

/** "linux/amd64*, linux/arm64" → the preferred (`*`) platforms when any is marked, else all of them. */
export function parseInspectPlatforms(value: string): string[] {
  const all = value
    .split(',')
    .map(p => p.trim())
    .filter(p => p !== '');
  const preferred = all.filter(p => p.includes('*'));
  return (preferred.length > 0 ? preferred : all).map(p => p.replace(/\*/g, ''));
}
