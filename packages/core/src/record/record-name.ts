import {posix} from 'node:path';

/** buildx's local state of a ref (localstate.State), as `history export` puts it in the record (`localState`). */
export interface RecordLocalState {
  LocalPath?: unknown;
  DockerfilePath?: unknown;
}

/**
 * A build's name as buildx's `history inspect` and docker's summary give it (buildx util/history/name.go
 * BuildName): BUILDKIT_BUILD_NAME, else the context or Dockerfile path and the target, from the record's frontend
 * attributes and buildx's local state of the ref. Paths are the runner's (POSIX).
 */
export function buildName(attrs: Record<string, string>, local?: RecordLocalState): string {
  const given = attrs['build-arg:BUILDKIT_BUILD_NAME'];
  if (given) return given;
  const target = attrs.target ?? '';
  let contextPath = '';
  if (attrs.context !== undefined) contextPath = attrs.context;
  else if (attrs['vcs:localdir:context'] !== undefined && attrs['vcs:localdir:context'] !== '.') {
    contextPath = attrs['vcs:localdir:context'];
  }
  let vcsSource = '';
  if (attrs['vcs:source'] !== undefined) vcsSource = attrs['vcs:source'];
  else if (attrs['input:context'] !== undefined && isGitUrl(attrs['input:context'])) vcsSource = attrs['input:context'];
  let dockerfilePath = '';
  if (attrs.filename !== undefined && attrs.filename !== 'Dockerfile') dockerfilePath = attrs.filename;
  const dfDir = attrs['vcs:localdir:dockerfile'];
  if (dfDir !== undefined && dfDir !== '.') dockerfilePath = posix.join(dfDir, dockerfilePath);

  let localPath = '';
  const lsPath = typeof local?.LocalPath === 'string' ? local.LocalPath : '';
  const lsDockerfile = typeof local?.DockerfilePath === 'string' ? local.DockerfilePath : '';
  if (local !== undefined && !isRemoteUrl(lsPath)) {
    if (lsPath !== '' && lsPath !== '-') localPath = lsPath;
    if (lsDockerfile !== '' && lsDockerfile !== '-' && lsDockerfile !== 'Dockerfile') dockerfilePath = lsDockerfile;
  }

  const defaultFilename = '/Dockerfile';
  const hasDefaultFileName = dockerfilePath.endsWith(defaultFilename) || dockerfilePath === '';
  if (dockerfilePath.endsWith(defaultFilename)) dockerfilePath = dockerfilePath.slice(0, -defaultFilename.length);

  let res = '';
  if (dockerfilePath.startsWith(localPath) && dockerfilePath.length > localPath.length) {
    res = dockerfilePath.slice(localPath.lastIndexOf('/') + 1);
  } else {
    const bpath = dockerfilePath.length > 0 ? dockerfilePath : localPath;
    if (bpath.length > 0) {
      const lidx = bpath.lastIndexOf('/');
      res = bpath.slice(lidx + 1);
      if (!hasDefaultFileName) {
        res = posix.join(posix.basename(lidx !== -1 ? bpath.slice(0, lidx) : bpath) || '.', res);
      }
    }
  }
  if (contextPath.length > 0) res = contextPath;
  if (target.length > 0) res = res.length > 0 ? `${res} (${target})` : target;
  if (res === '' && vcsSource !== '') return gitFragmentFormat(vcsSource);
  return res;
}

/** A context that is a URL (buildx urlutil.IsRemoteURL: http(s), git and ssh forms). */
function isRemoteUrl(s: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(s) || isGitUrl(s);
}

/** A Git reference as BuildKit's dfgitutil.ParseGitRef reads one (a URL ending .git, git@…, git://, github.com/…). */
function isGitUrl(s: string): boolean {
  return (
    /^(git@|git:\/\/|ssh:\/\/)/.test(s) || /^github\.com\//.test(s) || (/^https?:\/\//.test(s) && /\.git(#|$)/.test(s))
  );
}

/** dfgitutil.FragmentFormat without the subdir: the remote, with `#ref` when the URL names one. */
function gitFragmentFormat(url: string): string {
  const hash = url.indexOf('#');
  if (hash === -1) return url;
  const remote = url.slice(0, hash);
  const ref = url.slice(hash + 1).split(':')[0] ?? '';
  return ref === '' ? remote : `${remote}#${ref}`;
}
