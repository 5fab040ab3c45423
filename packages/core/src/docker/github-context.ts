// Ours, not @actions/github: importing it loads Octokit (cold start) for a few GITHUB_* values and one payload field.
import {readFileSync} from 'node:fs';

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

  /** `refs/heads/main`, a commit sha, or a PR ref, as docker's Context.gitRef (toolkit 0.62) computes it. */
  get gitRef(): string {
    let ref = this.env['GITHUB_REF'] ?? '';
    const sha = this.env['GITHUB_SHA'] ?? '';
    if (sha && ref && !ref.startsWith('refs/')) ref = `refs/heads/${ref}`;
    if (sha && !ref.startsWith('refs/pull/')) return sha;
    if (ref.startsWith('refs/pull/') && this.env['DOCKER_DEFAULT_GIT_CONTEXT_PR_HEAD_REF'] === 'true') {
      return ref.replace(/\/merge$/g, '/head');
    }
    return ref;
  }

  /**
   * The default build context: the repository as a Git URL at this run's ref
   * (`https://github.com/owner/repo.git#<sha>`); undefined outside a workflow run.
   */
  gitContext(): string | undefined {
    const repo = this.repository;
    return repo ? `${this.serverUrl}/${repo}.git#${this.gitRef}` : undefined;
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
