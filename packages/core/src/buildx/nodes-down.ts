import {bootErrors, downNodes, parseBuilderInspect, type InspectNode} from '../docker/builder-inspect.js';
import {BuildxError} from './buildx-error.js';

/** `buildx inspect --bootstrap` ended with a node (or the builder) not up: nothing may be built on it. */
export class BuilderNodesDownError extends BuildxError {
  constructor(
    message: string,
    /** The nodes that are down (empty when the builder itself could not be loaded). */
    readonly nodes: string[],
    /** What buildx said of them, without the advice: "node b1 (tcp://…) is inactive (its boot printed: …)". */
    readonly detail = message
  ) {
    super(message);
    this.name = 'BuilderNodesDownError';
  }
}

/**
 * Throws BuilderNodesDownError when the output of a successful `inspect --bootstrap` shows a node that is
 * not running. The exit code does not say it: buildx < 0.22 exits 0 when one node fails to boot while
 * another boots (docker/buildx#3062), and every version exits 0 when a node fails while being loaded (it is
 * printed with an `Error:` line and never booted). Each down node is named with its status or error, and
 * the error its boot printed to stderr.
 */
export function checkNodesUp(builder: string, stdout: string, stderr: string): void {
  const inspected = parseBuilderInspect(stdout);
  const down = downNodes(inspected);
  if (down.length === 0 && inspected.error === undefined) return;
  const printed = bootErrors(stderr);
  const parts = down.map(n =>
    describeNode(n, printed.get(n.name) ?? (down.length === 1 ? printed.get('') : undefined))
  );
  if (inspected.error !== undefined) parts.unshift(`buildx could not load its nodes: ${inspected.error}`);
  const detail = parts.join('; ');
  throw new BuilderNodesDownError(
    `Failed to bootstrap buildx builder "${builder}": ${detail}. No build is started while a node is down: check that this runner reaches the node's endpoint (firewall, proxy) and that its BuildKit answers, then run the job again`,
    down.map(n => n.name),
    detail
  );
}

function describeNode(n: InspectNode, bootError: string | undefined): string {
  const where = n.endpoint ? ` (${n.endpoint})` : '';
  const state = n.error !== undefined ? `failed: ${n.error}` : `is ${n.status ?? 'not running'}`;
  const boot = bootError !== undefined && bootError !== n.error ? ` (its boot printed: ERROR: ${bootError})` : '';
  return `node ${n.name}${where} ${state}${boot}`;
}
