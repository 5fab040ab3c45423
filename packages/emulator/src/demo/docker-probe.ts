// Whether this machine can back the demo's builders with a real BuildKit: a dockerd that answers and a
// docker CLI with buildx. Candidates: DOCKER_HOST (unix://), the socket scripts/e2e-up.sh recorded in
// .e2e/env.json, then /var/run/docker.sock.
import {spawnSync} from 'node:child_process';
import {existsSync, readFileSync} from 'node:fs';
import {join} from 'node:path';

export interface DockerProbeOpts {
  /** The repository root (for .e2e/env.json). */
  root: string;
  env?: NodeJS.ProcessEnv;
  /** Runs `docker ARGS`; true when it exits 0. Default: spawnSync with a 10 s time-out. */
  docker?: (args: string[]) => boolean;
  exists?: (path: string) => boolean;
}

export type DockerProbe = {real: true; socket: string} | {real: false; reason: string};

/** Finds a usable dockerd + buildx, or says why there is none. */
export function probeDocker(opts: DockerProbeOpts): DockerProbe {
  const env = opts.env ?? process.env;
  const exists = opts.exists ?? existsSync;
  const docker = opts.docker ?? defaultDocker;
  const sockets = candidateSockets(opts.root, env).filter(exists);
  if (sockets.length === 0) return {real: false, reason: 'no Docker socket on this machine'};
  for (const socket of sockets) {
    if (!docker(['-H', `unix://${socket}`, 'info', '--format', '{{.ServerVersion}}'])) continue;
    if (!docker(['buildx', 'version']))
      return {real: false, reason: `dockerd answers on ${socket} but buildx is missing`};
    return {real: true, socket};
  }
  return {real: false, reason: `no dockerd answers on ${sockets.join(', ')}`};
}

function candidateSockets(root: string, env: NodeJS.ProcessEnv): string[] {
  const out: string[] = [];
  const host = env['DOCKER_HOST'];
  if (host?.startsWith('unix://')) out.push(host.slice('unix://'.length));
  try {
    const state = JSON.parse(readFileSync(join(env['E2E_STATE_DIR'] ?? join(root, '.e2e'), 'env.json'), 'utf8')) as {
      dockerSocket?: unknown;
    };
    if (typeof state.dockerSocket === 'string') out.push(state.dockerSocket);
  } catch {
    // No e2e environment recorded: fine.
  }
  out.push('/var/run/docker.sock');
  return [...new Set(out)];
}

function defaultDocker(args: string[]): boolean {
  return spawnSync('docker', args, {stdio: 'ignore', timeout: 10_000}).status === 0;
}
