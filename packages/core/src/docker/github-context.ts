// Ours, not @actions/github: importing it loads Octokit (cold start) for a few GITHUB_* values and one payload field.
import {readFileSync} from 'node:fs';
import {parseDockerBool} from './input-list.js';
import {versionAtLeast} from './version-gate.js';

/** buildx reads the `?ref=` query form of a Git context from 0.29.0 on. */
const QUERY_FORM_BUILDX = '0.29.0';

/**
 * docker's two v7 actions pin different @docker/actions-toolkit releases, whose Build.gitContext differ.
 * https://github.com/docker/actions-toolkit/blob/v0.92.0/src/buildx/build.ts (build-push-action v7.3.0)
 * https://github.com/docker/actions-toolkit/blob/v0.87.0/src/buildx/build.ts (bake-action v7.1.0)
 */
export const GitContextRules = {
  /** Toolkit 0.92: `#<sha>` or `?ref=<sha>`; for a PR head ref, the pull request's head commit. */
  BuildPush: 'build-push',
  /** Toolkit 0.87: `#<sha>` (`#<ref>` for a pull request) or `?ref=<ref>&checksum=<sha>`. */
  Bake: 'bake'
} as const;
export type GitContextRules = (typeof GitContextRules)[keyof typeof GitContextRules];

export interface GitContextOpts {
  rules: GitContextRules;
  /** The buildx version measured; '' or absent when not known (then the fragment form). */
  buildxVersion?: string;
}

/** docker's Util.parseBoolOrDefault: a value that is not a Go boolean reads as false. */
function parseBoolOrFalse(value: string | undefined): boolean {
  try {
    return value !== undefined && parseDockerBool(value);
  } catch {
    return false;
  }
}

/**
 * GitHubContext is the part of the workflow run that docker's actions read from the runner's environment
 * (via @actions/github in @docker/actions-toolkit): server, repository, ref, sha, run id and attempt, and
 * the event payload's `repository.private`.
 */
export class GitHubContext {
  private readonly env: NodeJS.ProcessEnv;
  private payloadCache?: Record<string, unknown>;

  constructor(env: NodeJS.ProcessEnv) {
    this.env = env;
  }

  /** GITHUB_SERVER_URL, default https://github.com. */
  get serverUrl(): string {
    return this.env['GITHUB_SERVER_URL'] || 'https://github.com';
  }

  /** `owner/repo`, or undefined when GITHUB_REPOSITORY is not set (outside a workflow run). */
  get repository(): string | undefined {
    const repo = this.env['GITHUB_REPOSITORY'] ?? '';
    return /^[^/]+\/[^/]+$/.test(repo) ? repo : undefined;
  }

  get runId(): number {
    return Number.parseInt(this.env['GITHUB_RUN_ID'] ?? '', 10) || 0;
  }

  get runAttempt(): number {
    return this.env['GITHUB_RUN_ATTEMPT'] ? Number(this.env['GITHUB_RUN_ATTEMPT']) : 1;
  }

  /**
   * The default build context: this repository as a Git URL pinned to this run, as docker's v7 actions build
   * it (`new Build().gitContext()`); undefined outside a workflow run. Fragment form
   * `<server>/<repo>.git#<ref>`, or the query form `…git?ref=<ref>[&checksum=<sha>]` when
   * BUILDX_SEND_GIT_QUERY_AS_INPUT is true and buildx is >= 0.29.0. The two actions pin different
   * actions-toolkit releases, whose rules differ: see GitContextRules.
   */
  gitContext(opts: GitContextOpts): string | undefined {
    const repo = this.repository;
    if (!repo) return undefined;
    const base = `${this.serverUrl}/${repo}.git`;
    const ref = this.normalizedRef();
    const sha = this.env['GITHUB_SHA'] ?? '';
    const query =
      parseBoolOrFalse(this.env['BUILDX_SEND_GIT_QUERY_AS_INPUT']) &&
      versionAtLeast(opts.buildxVersion ?? '', QUERY_FORM_BUILDX);
    if (opts.rules === GitContextRules.Bake) {
      // toolkit 0.87: the commit in a `checksum` attribute; the fragment names a PR by its ref.
      if (query) return `${base}?ref=${ref}${sha ? `&checksum=${sha}` : ''}`;
      return `${base}#${sha && !ref.startsWith('refs/pull/') ? sha : ref}`;
    }
    // toolkit 0.92: the event commit in both forms; a PR head ref pins the head commit of the pull request.
    let pinned = sha || ref;
    if (ref.startsWith('refs/pull/') && ref.endsWith('/head')) pinned = this.pullRequestHeadSha() ?? ref;
    return query ? `${base}?ref=${pinned}` : `${base}#${pinned}`;
  }

  /** GITHUB_REF under refs/ (a bare branch gets refs/heads/); a PR's …/merge becomes …/head on request. */
  private normalizedRef(): string {
    const ref = this.env['GITHUB_REF'] ?? '';
    if (!ref.startsWith('refs/')) return `refs/heads/${ref}`;
    if (ref.startsWith('refs/pull/') && parseBoolOrFalse(this.env['DOCKER_DEFAULT_GIT_CONTEXT_PR_HEAD_REF'])) {
      return ref.replace(/\/merge$/g, '/head');
    }
    return ref;
  }

  /** `pull_request.head.sha` of the event payload. */
  private pullRequestHeadSha(): string | undefined {
    const pr = this.payload['pull_request'];
    const head = pr && typeof pr === 'object' ? (pr as Record<string, unknown>)['head'] : undefined;
    const sha = head && typeof head === 'object' ? (head as Record<string, unknown>)['sha'] : undefined;
    return typeof sha === 'string' ? sha : undefined;
  }

  /** `<server>/<repo>/actions/runs/<id>[/attempts/<n>]`, the provenance builder id. */
  workflowRunUrl(withAttempt: boolean): string {
    const base = `${this.serverUrl}/${this.repository ?? ''}/actions/runs/${this.runId}`;
    return withAttempt ? `${base}/attempts/${this.runAttempt}` : base;
  }

  /** The event payload (GITHUB_EVENT_PATH), {} when absent or unreadable. */
  get payload(): Record<string, unknown> {
    if (!this.payloadCache) {
      this.payloadCache = {};
      const path = this.env['GITHUB_EVENT_PATH'];
      if (path) {
        try {
          const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
          if (parsed && typeof parsed === 'object') this.payloadCache = parsed as Record<string, unknown>;
        } catch {
          // @actions/github only warns when the file is missing; an unreadable payload reads as {}.
        }
      }
    }
    return this.payloadCache;
  }

  /** True when the event payload says the repository is private. */
  get repositoryIsPrivate(): boolean {
    const repo = this.payload['repository'];
    return !!repo && typeof repo === 'object' && (repo as Record<string, unknown>)['private'] === true;
  }
}
