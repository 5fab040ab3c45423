import {RELEASE_VERSION} from '../docker/version-gate.js';
import {InputError} from '../errors.js';

/** The input that asks for a buildx; named in every error about it. */
export const BUILDX_VERSION_INPUT = 'buildx-version';

/**
 * What `buildx-version` asks for: the runner's own buildx (empty input), the newest release, or one release
 * (`version` without the leading v, e.g. "0.19.3").
 */
export type BuildxVersionRequest = {kind: 'runner'} | {kind: 'latest'} | {kind: 'release'; version: string};

/**
 * Parses `buildx-version` ('' → the runner's buildx; `latest`; `v0.19.3` or `0.19.3`). Anything else throws an
 * InputError naming the input and the accepted forms, before anything is downloaded or assigned.
 */
export function parseBuildxVersion(input: string | undefined): BuildxVersionRequest {
  const value = (input ?? '').trim();
  if (value === '') return {kind: 'runner'};
  if (value.toLowerCase() === 'latest') return {kind: 'latest'};
  const m = RELEASE_VERSION.exec(value);
  if (m) return {kind: 'release', version: m[1] as string};
  throw new InputError(
    BUILDX_VERSION_INPUT,
    `"${value}" is not a buildx version: use "latest", a release such as "v0.19.3" (see ` +
      "https://github.com/docker/buildx/releases), or leave it empty to use the runner's buildx"
  );
}
