// The Dockerfiles build checks point at, found as docker's actions find them (@docker/actions-toolkit:
// Buildx.localState, Buildx.convertWarningsToGitHubAnnotations): through the local state buildx keeps for every
// build ref in <buildx config dir>/refs/<builder>/<node>/<id>, which the buildx client writes on the runner
// whatever the driver (build/localstate.go), so a remote builder has it too.
import {existsSync, readFileSync} from 'node:fs';
import {join, relative, resolve, sep} from 'node:path';
import type {Logger} from '../logger.js';

/** The toolkit function whose debug lines these are. */
export const CONVERT = 'Buildx.convertWarningsToGitHubAnnotations';

/** buildx's local state of one build ref (localstate.State). */
export interface BuildxLocalState {
  Target?: string;
  LocalPath: string;
  DockerfilePath: string;
  GroupRef?: string;
}

/** A Dockerfile warnings can point at: its path in the workspace, and its content (base64) unless remote. */
export interface CheckedDockerfile {
  path: string;
  content?: string;
  /** From a Git context of this repository: its content is not read, every warning matches it. */
  remote?: boolean;
}

/** Buildx.localState: reads `<refsDir>/<builder>/<node>/<id>`; throws when the ref is malformed or the file missing. */
export function readLocalState(ref: string, refsDir: string): BuildxLocalState {
  const [builder, node, id] = ref.split('/');
  if (!builder || !node || !id) throw new Error(`Invalid build reference: ${ref}`);
  const file = join(refsDir, builder, node, id);
  if (!existsSync(file)) throw new Error(`Local state not found in ${file}`);
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<BuildxLocalState>;
  if (typeof parsed.LocalPath !== 'string' || typeof parsed.DockerfilePath !== 'string') {
    throw new Error(`Local state in ${file} has no LocalPath or DockerfilePath`);
  }
  return fixLocalState(parsed as BuildxLocalState);
}

/**
 * docker/buildx#2560: older buildx made a remote context absolute (`/work/https:/github.com/…`). The URL is
 * cut out of LocalPath (its prefix removed from DockerfilePath too), and a `…/-` path means stdin.
 */
export function fixLocalState(ls: BuildxLocalState): BuildxLocalState {
  const fixed = {...ls};
  const m = /(.*)(https?:\/{1,2}\S+|ssh:\/{1,2}\S+|git:\/{1,2}\S+)/i.exec(fixed.LocalPath);
  if (m && m[1] !== undefined && m[2] !== undefined) {
    const prefix = m[1];
    let url = m[2];
    // `https:/host` (a slash lost by path cleaning) gets its second slash back.
    for (const scheme of ['https', 'http', 'ssh', 'git']) {
      if (url.startsWith(`${scheme}:/`) && !url.startsWith(`${scheme}://`))
        url = url.replace(`${scheme}:/`, `${scheme}://`);
    }
    fixed.LocalPath = url;
    if (fixed.DockerfilePath.indexOf(prefix) === 0) fixed.DockerfilePath = fixed.DockerfilePath.slice(prefix.length);
  }
  if (fixed.LocalPath.endsWith('/-')) fixed.LocalPath = '-';
  if (fixed.DockerfilePath.endsWith('/-')) fixed.DockerfilePath = '-';
  return fixed;
}

/** Git.parseURL of the toolkit: host (with port) and path of an http(s), ssh or git URL; undefined otherwise. */
export function parseGitUrl(s: string): {host: string; path: string} | undefined {
  const m = /^[a-zA-Z0-9]+:\/\//.exec(s);
  if (!m) return undefined;
  const scheme = m[0].slice(0, -3).toLowerCase();
  if (!['http', 'https', 'ssh', 'git'].includes(scheme)) return undefined;
  try {
    const url = new URL(s);
    return {host: `${url.hostname}${url.port ? `:${url.port}` : ''}`, path: url.pathname};
  } catch {
    return undefined;
  }
}

export interface FindDockerfilesOpts {
  logger: Logger;
  /** buildx's refs folder (`<buildx config dir>/refs`). */
  refsDir: string;
  /** GITHUB_WORKSPACE, else the process's cwd. */
  workspace: string;
  /** `owner/repo` of this run; a Git context of another repository is not annotated. */
  repository?: string;
  /** Where relative paths are resolved (the action's process cwd, as docker's fs calls do). */
  cwd: string;
}

/**
 * The Dockerfiles of the build refs, in ref order, as docker picks them: none for stdin; a Git context only
 * on github.com or *.ghe.com and only for this repository (remote: matched without reading it); a local one
 * only if it exists and lies inside the workspace, with its content. Each refusal is a debug line.
 */
export function findDockerfiles(refs: string[], opts: FindDockerfilesOpts): CheckedDockerfile[] {
  const {logger} = opts;
  const found: CheckedDockerfile[] = [];
  for (const ref of refs) {
    let ls: BuildxLocalState;
    try {
      ls = readLocalState(ref, opts.refsDir);
    } catch (e) {
      logger.debug(`${CONVERT}(${ref}): local state not found: ${(e as Error).message}`);
      continue;
    }
    if (ls.DockerfilePath === '-') {
      logger.debug(`${CONVERT}(${ref}): skipping stdin Dockerfile`);
      continue;
    }
    const dockerfilePath = ls.DockerfilePath === '' ? 'Dockerfile' : ls.DockerfilePath;

    const git = parseGitUrl(ls.LocalPath);
    if (git) {
      logger.debug(`${CONVERT}(${ref}): git context detected: ${ls.LocalPath}`);
      const host = git.host.replace(/:.*/, '');
      if (host !== 'github.com' && !host.endsWith('.ghe.com')) {
        logger.debug(`${CONVERT}(${ref}): not a GitHub repo: ${host}`);
        continue;
      }
      const repo = git.path.replace(/^\//, '').replace(/\.git$/, '');
      // docker throws without GITHUB_REPOSITORY (and no event payload); we annotate nothing for it instead.
      if (repo !== opts.repository) {
        logger.debug(`${CONVERT}(${ref}): not same GitHub repo: ${repo} != ${opts.repository ?? ''}`);
        continue;
      }
      // A Git context's Dockerfile path is relative to the repository.
      found.push({path: dockerfilePath, remote: true});
      continue;
    }

    const absolute = resolve(opts.cwd, dockerfilePath);
    if (!existsSync(absolute)) {
      logger.debug(`${CONVERT}: Dockerfile not found from localstate ref ${ref}: ${dockerfilePath}`);
      continue;
    }
    if (!isPathInside(opts.workspace, absolute)) {
      logger.debug(`${CONVERT}: skipping Dockerfile outside of workspace: ${dockerfilePath}`);
      continue;
    }
    let text: string;
    try {
      text = readFileSync(absolute, 'utf8');
    } catch (e) {
      // docker's readFileSync throws here and fails the step after a successful build; buildx has just read
      // the same file, so this is a race or a permission change. We skip the file instead of failing (which
      // would retry the build elsewhere).
      logger.debug(`${CONVERT}: cannot read Dockerfile ${dockerfilePath}: ${(e as Error).message}`);
      continue;
    }
    // Read as UTF-8 and encoded again, as docker compares it with the warning's sourceInfo.data.
    found.push({path: relative(opts.workspace, absolute), content: Buffer.from(text, 'utf8').toString('base64')});
  }
  return found;
}

/** Util.isPathRelativeTo: `child` is strictly under `parent`. */
function isPathInside(parent: string, child: string): boolean {
  const p = resolve(parent);
  return resolve(child).startsWith(p.endsWith(sep) ? p : `${p}${sep}`);
}
