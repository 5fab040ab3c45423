import {BUILDX_VERSION_INPUT} from '../buildx-install/buildx-version.js';
import type {ExecResult} from '../exec.js';
import {BuildxError} from './buildx-error.js';

/** Why `docker buildx` cannot run: no docker CLI, docker without the buildx plugin, or a buildx that fails. */
export type BuildxUnavailableReason = 'no-docker' | 'no-buildx' | 'broken' | 'timeout';

/** Where buildx comes from, named in every fix. */
export const BUILDX_DOCS_URL = 'https://docs.docker.com/go/buildx/';

/**
 * The way out offered when the runner has no buildx: the step installs the plugin. It needs a docker CLI to plug
 * into, so it is left out of the message when there is no docker at all (it would fail the same way).
 */
export const INSTALL_BUILDX_ALTERNATIVE = `set "${BUILDX_VERSION_INPUT}: latest" to install one`;

/** How `alternative` separates several ways out ("a, or b"). */
const ALTERNATIVES = ', or ';

export interface BuildxUnavailableErrorOpts {
  reason: BuildxUnavailableReason;
  /** docker's own words (its stderr, whole), or the spawn error. */
  detail: string;
  /** The docker CLI that was run. */
  docker?: string;
  /**
   * More ways out, appended to the fix as ", or …" (e.g. `set "setup-buildx: false" to only assign the builders`),
   * several joined with ", or "; INSTALL_BUILDX_ALTERNATIVE among them is dropped when there is no docker CLI.
   */
  alternative?: string;
}

/**
 * `docker buildx` cannot run on this machine. The message keeps docker's own reason and says what to do;
 * callers rethrow it as it is (adding, at most, what was not done: "nothing was assigned").
 */
export class BuildxUnavailableError extends BuildxError {
  readonly reason: BuildxUnavailableReason;
  /** docker's own words. */
  readonly detail: string;

  constructor(opts: BuildxUnavailableErrorOpts) {
    const docker = opts.docker ?? 'docker';
    const what: Record<BuildxUnavailableReason, string> = {
      'no-docker': `the Docker CLI ("${docker}") ${/\bENOENT\b/.test(opts.detail) ? 'is not on PATH' : 'cannot be run'} (${opts.detail})`,
      'no-buildx': `docker has no buildx plugin (docker says: ${opts.detail})`,
      broken: `\`${docker} buildx version\` failed (${opts.detail})`,
      timeout: `\`${docker} buildx version\` did not answer (${opts.detail})`
    };
    const ways = (opts.alternative ?? '')
      .split(ALTERNATIVES)
      .filter(way => way !== '' && !(opts.reason === 'no-docker' && way === INSTALL_BUILDX_ALTERNATIVE));
    const alternative = ways.map(way => `${ALTERNATIVES}${way}`).join('');
    super(`docker buildx is not available: ${what[opts.reason]}: ${defaultFix(opts.reason)}${alternative}`, {
      timedOut: opts.reason === 'timeout'
    });
    this.name = 'BuildxUnavailableError';
    this.reason = opts.reason;
    this.detail = opts.detail;
  }

  /**
   * The error for a failed `docker buildx version`, or undefined when it did not fail or was stopped by
   * the caller's signal (a cancellation is the caller's to report, not a missing buildx).
   */
  static fromResult(res: ExecResult, opts: {docker?: string; timeoutMs?: number; alternative?: string} = {}) {
    if (res.exitCode === 0 || res.killed === 'aborted') return undefined;
    const base = {docker: opts.docker, alternative: opts.alternative};
    if (res.spawnError !== undefined) {
      return new BuildxUnavailableError({...base, reason: 'no-docker', detail: res.stderr.trim() || res.spawnError});
    }
    if (res.killed === 'timeout') {
      return new BuildxUnavailableError({...base, reason: 'timeout', detail: `no answer within ${opts.timeoutMs} ms`});
    }
    const said = oneLine(res.stderr) || oneLine(res.stdout) || `exit code ${res.exitCode}, no output`;
    return new BuildxUnavailableError({
      ...base,
      reason: NO_PLUGIN.test(res.stderr) ? 'no-buildx' : 'broken',
      detail: said
    });
  }
}

/**
 * docker's answer to a plugin it does not have (or cannot load): before docker 28
 * "docker: 'buildx' is not a docker command.", since then "docker: unknown command: docker buildx"
 * (docker/cli cmd/docker/docker.go, cli-plugins/manager/cobra.go).
 */
const NO_PLUGIN = /'buildx' is not a docker command|unknown command:? (?:"|')?(?:docker )?buildx\b/;

/** Consistent with the README: the actions need the Docker CLI and buildx on the runner, not setup-buildx-action. */
function defaultFix(reason: BuildxUnavailableReason): string {
  switch (reason) {
    case 'no-docker':
      return 'run the job on a runner with the Docker CLI and its buildx plugin (GitHub-hosted Ubuntu runners have both)';
    case 'no-buildx':
      return `install the buildx plugin on the runner (${BUILDX_DOCS_URL}), or run the job on a runner that has it (GitHub-hosted Ubuntu runners do)`;
    case 'broken':
      return `check or reinstall the buildx plugin on the runner (${BUILDX_DOCS_URL})`;
    case 'timeout':
      return 'check that docker answers on the runner (a hung plugin or a slow disk), then run the job again';
  }
}

/** Every non-blank line, trimmed and joined: docker's whole reason, on one line of an annotation. */
function oneLine(text: string): string {
  return text
    .split(/\r?\n/)
    .map(l => l.trim())
    .filter(l => l !== '')
    .join(' ')
    .slice(0, 1000);
}
