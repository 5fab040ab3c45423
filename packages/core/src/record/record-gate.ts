import {versionAtLeast} from '../docker/version-gate.js';

/** The first buildx with `buildx history export` (docker's gate for its summary and record). */
export const RECORD_MIN_BUILDX = '0.23.0';

export interface RecordGateOpts {
  /** The buildx version `docker buildx version` reported for this step (measured, not asked for). */
  buildxVersion: string;
  /** DOCKER_BUILD_SUMMARY as the step read it (false turns summary and record off). */
  summary: boolean;
  /** GITHUB_SERVER_URL and the rest of the step's environment. */
  env: NodeJS.ProcessEnv;
  /** build-push's `call` input ('' or `build` build; any other method is a subrequest). */
  call?: string;
}

/**
 * Why the step can have no build record, in docker's words (its v7 main step's info lines), or undefined when
 * it can: DOCKER_BUILD_SUMMARY=false, a `call` other than `build`, GitHub Enterprise Server, buildx < 0.23.
 */
export function recordSkipReason(opts: RecordGateOpts): string | undefined {
  if (!opts.summary) return 'Build summary disabled';
  const method = (opts.call ?? '').split(',')[0]?.trim() ?? '';
  if (method !== '' && method !== 'build') return `Build summary skipped for ${method} subrequest`;
  if (isEnterpriseServer(opts.env['GITHUB_SERVER_URL'])) return 'Build summary is not yet supported on GHES';
  if (!versionAtLeast(opts.buildxVersion, RECORD_MIN_BUILDX)) {
    return `Build summary requires Buildx >= ${RECORD_MIN_BUILDX} (this step runs buildx ${opts.buildxVersion}; set "buildx-version: latest" for one)`;
  }
  return undefined;
}

/**
 * GitHub Enterprise Server: a server URL whose host is not github.com nor a GHE.com tenant (*.ghe.com). A
 * *.localhost host (the emulator) counts as GitHub's, as the artifact client counts it. Unset: github.com.
 */
export function isEnterpriseServer(serverUrl: string | undefined): boolean {
  if (!serverUrl) return false;
  let host: string;
  try {
    host = new URL(serverUrl).hostname.toLowerCase();
  } catch {
    return true;
  }
  return !(host === 'github.com' || host.endsWith('.ghe.com') || host === 'localhost' || host.endsWith('.localhost'));
}
