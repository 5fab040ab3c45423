import {apiError, type HttpResult, json, parseJson} from '../http.js';
import type {ArtifactFaultRule} from './artifact-faults.js';
import type {ArtifactRecord} from './artifact-store.js';

/** Prefix of the artifact service's admin routes: loopback tooling, no authentication (as `/_emulator`). */
export const ARTIFACT_ADMIN_PREFIX = '/_artifacts';

/** What the admin routes reach; GitHubArtifactService implements it. */
export interface ArtifactControls {
  runnerEnv(opts: {jobBackendId?: string}): Record<string, string>;
  artifacts(): ArtifactRecord[];
  addFault(rule: ArtifactFaultRule): void;
  clearFaults(): void;
}

/**
 * Handles `/_artifacts/*`, for a service run outside a test (`npm run emulator`):
 * POST token `{"jobBackendId"?}` answers a job's `{ACTIONS_RESULTS_URL, ACTIONS_RUNTIME_TOKEN}`;
 * GET artifacts lists the store (sizes, no bytes); POST faults adds an ArtifactFaultRule, DELETE faults clears them.
 */
export function handleArtifactAdmin(
  controls: ArtifactControls,
  method: string,
  pathname: string,
  body: Buffer
): HttpResult {
  const path = pathname.slice(ARTIFACT_ADMIN_PREFIX.length).replace(/\/+$/, '') || '/';
  const notAllowed = (allow: string): HttpResult =>
    apiError(405, 'method_not_allowed', `Method ${method} not allowed; use ${allow}`, {allow});
  if (path === '/token') {
    if (method !== 'POST') return notAllowed('POST');
    const request = parseJson(body) as {jobBackendId?: unknown} | undefined;
    const job = request?.jobBackendId;
    if (job !== undefined && (typeof job !== 'string' || job === '')) {
      return apiError(400, 'invalid_field', '"jobBackendId" must be a non-empty string');
    }
    return json(200, controls.runnerEnv({jobBackendId: job}));
  }
  if (path === '/artifacts') {
    if (method !== 'GET') return notAllowed('GET');
    return json(200, {artifacts: controls.artifacts().map(({bytes, ...a}) => ({...a, size: bytes?.length}))});
  }
  if (path === '/faults') {
    if (method === 'DELETE') {
      controls.clearFaults();
      return json(200, {cleared: true});
    }
    if (method !== 'POST') return notAllowed('POST, DELETE');
    const rule = parseJson(body);
    if (typeof rule !== 'object' || rule === null) return apiError(400, 'bad_request', 'Body must be a fault rule');
    try {
      controls.addFault(rule as ArtifactFaultRule);
    } catch (e) {
      return apiError(400, 'invalid_fault', e instanceof Error ? e.message : String(e));
    }
    return json(201, {added: rule});
  }
  return apiError(404, 'not_found', `No admin route ${pathname}`);
}
