/** What a BuildxInstallError is about, for callers that react differently (e.g. a retry on 'http' 5xx). */
export type BuildxInstallFailure = 'http' | 'network' | 'checksum' | 'platform' | 'filesystem';

export interface BuildxInstallErrorOpts {
  failure: BuildxInstallFailure;
  /** The URL that failed, when the failure is about one. */
  url?: string;
  /** HTTP status of the answer, when one arrived. */
  status?: number;
  cause?: unknown;
}

/**
 * BuildxInstallError is every failure to download, verify or install the buildx asked for by `buildx-version`.
 * The message says what failed (URL, status, digests) and what to do.
 */
export class BuildxInstallError extends Error {
  readonly failure: BuildxInstallFailure;
  readonly url?: string;
  readonly status?: number;

  constructor(message: string, opts: BuildxInstallErrorOpts) {
    super(message, {cause: opts.cause});
    this.name = 'BuildxInstallError';
    this.failure = opts.failure;
    if (opts.url !== undefined) this.url = opts.url;
    if (opts.status !== undefined) this.status = opts.status;
  }
}

/** The way out we offer in every message: the runner's own buildx. */
export const USE_RUNNER_BUILDX = "or leave buildx-version empty to use the runner's buildx";
