/** Paths of the three PEM files a remote-driver node needs. */
export interface NodeCertPaths {
  cacert: string;
  cert: string;
  key: string;
}

export interface CreateNodeArgsOpts {
  /** buildx builder name. */
  name: string;
  /** Node name; we use the builder id. */
  node: string;
  /** `tcp://host:port`. */
  endpoint: string;
  certs: NodeCertPaths;
  /** e.g. ['linux/amd64']; omitted when empty. */
  platforms?: string[];
  /** Add this node to an existing builder instead of creating it. */
  append?: boolean;
  /** Make the builder the default one (ignored with append: the builder already exists). */
  use?: boolean;
}

/**
 * `buildx create` argv for one remote-driver node (without the leading `docker`):
 * `buildx create --name N [--append] --node ID --driver remote --driver-opt cacert=…,cert=…,key=… [--platform P] [--use] tcp://HOST:PORT`.
 */
export function createNodeArgs(opts: CreateNodeArgsOpts): string[] {
  const args = ['buildx', 'create', '--name', opts.name];
  if (opts.append) args.push('--append');
  args.push('--node', opts.node, '--driver', 'remote');
  args.push(
    '--driver-opt',
    csvJoin([`cacert=${opts.certs.cacert}`, `cert=${opts.certs.cert}`, `key=${opts.certs.key}`])
  );
  if (opts.platforms && opts.platforms.length > 0) args.push('--platform', opts.platforms.join(','));
  if (opts.use && !opts.append) args.push('--use');
  args.push(opts.endpoint);
  return args;
}

/** `buildx inspect --bootstrap --builder N`: connects to every node and reports its platforms. */
export function inspectBootstrapArgs(name: string): string[] {
  return ['buildx', 'inspect', '--bootstrap', '--builder', name];
}

/** `buildx inspect --builder N`: reads the builder's config without connecting. */
export function inspectArgs(name: string): string[] {
  return ['buildx', 'inspect', '--builder', name];
}

/** `buildx rm N`: forgets the builder locally (the remote driver has nothing to stop). */
export function rmArgs(name: string): string[] {
  return ['buildx', 'rm', name];
}

/** `buildx version`. */
export function versionArgs(): string[] {
  return ['buildx', 'version'];
}

/**
 * Joins fields the way buildx splits `--driver-opt` (a CSV record): a field holding a comma,
 * a quote or a line break is quoted, with quotes doubled.
 */
export function csvJoin(fields: string[]): string {
  return fields.map(f => (/[",\r\n]/.test(f) ? `"${f.replace(/"/g, '""')}"` : f)).join(',');
}
