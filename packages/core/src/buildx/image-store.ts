/**
 * The image store of the Docker Engine that `--load` imports into. buildx loads a multi-platform image (or
 * one with attestations) only into the containerd image store: it asks `docker info` for a DriverStatus
 * entry `driver-type: io.containerd.snapshotter.v1` (buildx util/dockerutil features, 0.13 to 0.36) and
 * otherwise fails with "docker exporter does not currently support exporting manifest lists". Docker
 * 26 to 29 print that entry with the containerd store (the default of fresh Docker 29 installs) and the
 * storage driver's own status (Backing Filesystem, …) with the classic one.
 */
export type ImageStore = 'containerd' | 'classic';

/** The image store, or why it could not be read (no engine reachable, an older CLI, …). */
export type ImageStoreProbe = {store: ImageStore} | {store: undefined; why: string};

/** The DriverStatus entry of the containerd image store. */
const CONTAINERD_SNAPSHOTTER: [string, string] = ['driver-type', 'io.containerd.snapshotter.v1'];

/**
 * `docker info` argv printing one JSON object. ServerErrors is in it because with `--format` the CLI exits 0
 * when the engine cannot be reached (it prints the error to stderr and formats an empty DriverStatus).
 */
export function dockerInfoArgs(): string[] {
  return ['info', '--format', '{"ServerErrors":{{json .ServerErrors}},"DriverStatus":{{json .DriverStatus}}}'];
}

/** Reads the output of dockerInfoArgs(). */
export function parseImageStore(stdout: string): ImageStoreProbe {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdout.trim());
  } catch {
    return {store: undefined, why: `unexpected \`docker info\` output: ${JSON.stringify(stdout.trim().slice(0, 200))}`};
  }
  if (typeof parsed !== 'object' || parsed === null) {
    return {store: undefined, why: `unexpected \`docker info\` output: ${JSON.stringify(stdout.trim().slice(0, 200))}`};
  }
  const {ServerErrors: errors, DriverStatus: status} = parsed as {ServerErrors?: unknown; DriverStatus?: unknown};
  if (Array.isArray(errors) && errors.length > 0) return {store: undefined, why: errors.map(String).join('; ')};
  const pairs = Array.isArray(status) ? status : [];
  const containerd = pairs.some(
    p => Array.isArray(p) && p[0] === CONTAINERD_SNAPSHOTTER[0] && p[1] === CONTAINERD_SNAPSHOTTER[1]
  );
  return {store: containerd ? 'containerd' : 'classic'};
}
