/** One node of `docker buildx inspect` output. */
export interface InspectNode {
  name: string;
  endpoint?: string;
  /** Driver status, e.g. "running", "inactive", "stopped" (absent when buildx printed an error instead). */
  status?: string;
  /** The node's `Error:` line: buildx could not load or reach it (no status is printed then). */
  error?: string;
  /** BuildKit version, e.g. "v0.13.2". */
  buildkit?: string;
  /** The node's platforms; only the preferred ones (marked `*`) when any is marked. */
  platforms: string[];
}

export interface InspectedBuilder {
  name?: string;
  driver?: string;
  /** The builder's own `Error:` line (printed before `Nodes:`): buildx could not load its nodes. */
  error?: string;
  nodes: InspectNode[];
}

/**
 * Parses `docker buildx inspect [--bootstrap]` output (buildx 0.10 to 0.2x), like docker's
 * Builder.parseInspect: the first `Name:` is the builder, each later one starts a node. An `Error:` line
 * before the first node is the builder's, after it the node's (buildx commands/inspect.go, 0.13 to 0.36).
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
      case 'error':
        if (node) node.error = value;
        else builder.error = value;
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

/**
 * The nodes of `inspect` that are not up: an `Error:` line, or a status other than "running". A node
 * without either (output of another shape) is not counted as down.
 */
export function downNodes(inspected: InspectedBuilder): InspectNode[] {
  return inspected.nodes.filter(n => n.error !== undefined || (n.status !== undefined && n.status !== 'running'));
}

/**
 * What the boot of each node printed last as an error, from the stderr of `inspect --bootstrap`: buildx
 * names a vertex after its node when it boots several (`#1 [b2 internal] waiting for connection`, then
 * `#1 ERROR: …`); a lone booting node's vertex has no name, and its error is filed under ''.
 */
export function bootErrors(stderr: string): Map<string, string> {
  const vertexNode = new Map<string, string>();
  const errors = new Map<string, string>();
  for (const line of stderr.split(/\r?\n/)) {
    // Boot vertices are `[internal] …`; prefixed, `[<node> internal] …`.
    const named = /^#(\d+) \[([^\]\s]+) /.exec(line);
    if (named && !vertexNode.has(named[1] as string)) vertexNode.set(named[1] as string, named[2] as string);
    const failed = /^#(\d+) ERROR: (.+)$/.exec(line);
    if (failed) errors.set(vertexNode.get(failed[1] as string) ?? '', (failed[2] as string).trim());
  }
  return errors;
}
