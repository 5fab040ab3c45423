import {RELEASE_VERSION} from '../docker/version-gate.js';
import {BuildxInstallError, USE_RUNNER_BUILDX} from './buildx-install-error.js';
import {ReleaseHttp} from './release-http.js';

/** Where docker publishes buildx; the releases live under `<base>/releases/…` as on any GitHub repository. */
export const BUILDX_RELEASES_BASE_URL = 'https://github.com/docker/buildx';

export interface BuildxReleasesOpts {
  /** The repository URL; tests point it at a local server. Default BUILDX_RELEASES_BASE_URL. */
  baseUrl?: string;
  http?: ReleaseHttp;
}

/**
 * BuildxReleases is docker/buildx's GitHub releases, by URL alone (no API, so no token and no API rate limit):
 * `latest` is where `<base>/releases/latest` redirects (`…/releases/tag/v0.19.3`), assets and checksums.txt
 * are `<base>/releases/download/v<version>/<name>` (GitHub then redirects to its download host).
 */
export class BuildxReleases {
  readonly baseUrl: string;
  private readonly http: ReleaseHttp;

  constructor(opts: BuildxReleasesOpts = {}) {
    this.baseUrl = (opts.baseUrl ?? BUILDX_RELEASES_BASE_URL).replace(/\/+$/, '');
    this.http = opts.http ?? new ReleaseHttp();
  }

  /** The version (no leading v) of the newest release. */
  async latestVersion(signal?: AbortSignal): Promise<string> {
    const url = `${this.baseUrl}/releases/latest`;
    const target = await this.http.redirectTarget(url, {
      what: 'find the latest buildx release',
      hint: status => releaseHint(status, `set buildx-version to a release such as v0.19.3`),
      signal
    });
    const tag = /\/releases\/tag\/([^/]+)\/?$/.exec(new URL(target).pathname)?.[1];
    const m = tag === undefined ? null : RELEASE_VERSION.exec(tag);
    if (!m) {
      throw new BuildxInstallError(
        `Failed to find the latest buildx release: ${url} redirects to ${target}, which names no release ` +
          `(set buildx-version to a release such as v0.19.3, ${USE_RUNNER_BUILDX})`,
        {failure: 'http', url}
      );
    }
    return m[1] as string;
  }

  /** The URL of a file of a release (`version` without the leading v). */
  assetUrl(version: string, name: string): string {
    return `${this.baseUrl}/releases/download/v${version}/${encodeURIComponent(name)}`;
  }

  async checksums(version: string, signal?: AbortSignal): Promise<string> {
    return this.http.text(this.assetUrl(version, 'checksums.txt'), {
      what: `download checksums.txt of buildx v${version}`,
      hint: status => releaseHint(status, `check that v${version} is a buildx release at ${this.baseUrl}/releases`),
      signal
    });
  }

  async download(
    version: string,
    asset: string,
    dest: string,
    signal?: AbortSignal
  ): Promise<{sha256: string; bytes: number}> {
    return this.http.download(this.assetUrl(version, asset), dest, {
      what: `download buildx v${version}`,
      hint: status =>
        releaseHint(
          status,
          `check that v${version} is a buildx release with an asset ${asset} at ${this.baseUrl}/releases`
        ),
      signal
    });
  }
}

/** What to do about a failed GET, by status (undefined: no answer). */
function releaseHint(status: number | undefined, notFound: string): string {
  if (status === undefined) {
    return `check the runner's network and proxy settings (HTTPS_PROXY, NO_PROXY), ${USE_RUNNER_BUILDX}`;
  }
  if (status === 404) return `${notFound}, ${USE_RUNNER_BUILDX}`;
  if (status === 403 || status === 429)
    return `GitHub refused or rate-limited the request: re-run later, ${USE_RUNNER_BUILDX}`;
  if (status >= 500) return `the release server failed: re-run the job, ${USE_RUNNER_BUILDX}`;
  return USE_RUNNER_BUILDX;
}
