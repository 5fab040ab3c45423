import {mkdtemp, rm, stat, symlink} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {errorMessage} from '../errors.js';
import type {Logger} from '../logger.js';
import type {RecordUpload} from '../report/run-record.js';

/** The runner's variables that @actions/artifact reads (from process.env, always). */
export enum ArtifactEnv {
  /** The job's token for the results service: a JWT whose `scp` claim holds `Actions.Results:<run>:<job>`. */
  RuntimeToken = 'ACTIONS_RUNTIME_TOKEN',
  /** The results service (its origin is used: `<origin>/twirp/github.actions.results.api.v1.ArtifactService/…`). */
  ResultsUrl = 'ACTIONS_RESULTS_URL',
  /** github.com, *.ghe.com or *.localhost; anything else is GitHub Enterprise Server, where the client refuses. */
  ServerUrl = 'GITHUB_SERVER_URL',
  /** The repository's longest retention in days; a longer request is shortened to it (the client warns). */
  RetentionDays = 'GITHUB_RETENTION_DAYS'
}

export interface UploadBuildRecordOpts {
  /** The record file (`.dockerbuild`). */
  filePath: string;
  /** The artifact's name; with a non-zipped upload it is also the file's name when downloaded. */
  name: string;
  logger: Logger;
  /**
   * Where to decide whether there is an artifact service (default process.env). @actions/artifact itself reads
   * process.env only, so an `env` whose ACTIONS_RUNTIME_TOKEN or ACTIONS_RESULTS_URL differ from process.env's, or
   * whose GITHUB_SERVER_URL means GHES where process.env's does not (or the reverse), is refused with `{error}`
   * rather than uploading somewhere the caller did not mean.
   */
  env?: NodeJS.ProcessEnv;
  /** The artifact's retention in days (DOCKER_BUILD_RECORD_RETENTION_DAYS, read by the caller); default the repository's. */
  retentionDays?: number;
}

/**
 * Uploads a build record as one non-zipped artifact through GitHub's artifact service with the real client
 * (`@actions/artifact`, as docker's post step does). Never throws: the result says what became of the upload,
 * `{artifactId, retentionDays}`, `{skipped}` (no artifact service: off a runner, or GitHub Enterprise Server) or
 * `{error}` (one line, without the runtime token or the signed URL's signature). It logs that result itself (info
 * for an upload or a skip, a warning for an error): callers record it and do not log it again. The client prints its
 * progress on stdout through @actions/core ("Uploading artifact: …", as in docker's post step); it opens no group.
 * DOCKER_BUILD_RECORD_UPLOAD=false is the caller's to honour (it does not call this).
 */
export async function uploadBuildRecord(opts: UploadBuildRecordOpts): Promise<RecordUpload> {
  const result = await upload(opts);
  if (result.error !== undefined) {
    opts.logger.warning(`Build record not uploaded: ${result.error}`);
  } else if (result.skipped !== undefined) {
    opts.logger.info(`Build record not uploaded: ${result.skipped}`);
  } else {
    const kept = result.retentionDays === undefined ? '' : `, kept ${result.retentionDays} days`;
    opts.logger.info(`Build record uploaded: artifact ${opts.name} (id ${result.artifactId}${kept})`);
  }
  return result;
}

type ArtifactModule = typeof import('@actions/artifact');
let artifactModule: Promise<ArtifactModule> | undefined;

function loadArtifactModule(): Promise<ArtifactModule> {
  artifactModule ??= import('@actions/artifact');
  return artifactModule;
}

/**
 * Starts loading @actions/artifact when `env` has an artifact service to upload to: the client is a large
 * module (over a second to load on a busy 2-core runner, measured by `npm run bench -- record`), loaded this
 * way while the step waits for its builders instead of after the teardown. Never throws; a failed load is the
 * upload's error later.
 */
export function preloadArtifactClient(env: NodeJS.ProcessEnv = process.env): void {
  if (skipReason(env) !== undefined) return;
  loadArtifactModule().catch(() => undefined);
}

async function upload(opts: UploadBuildRecordOpts): Promise<RecordUpload> {
  const env = opts.env ?? process.env;
  const skipped = skipReason(env);
  if (skipped !== undefined) return {skipped};
  const token = env[ArtifactEnv.RuntimeToken] ?? '';
  if (env !== process.env) {
    // What the client will read again from process.env; GITHUB_SERVER_URL only as far as it decides GHES.
    const differing = [ArtifactEnv.RuntimeToken, ArtifactEnv.ResultsUrl].filter(key => env[key] !== process.env[key]);
    if (isGhes(env[ArtifactEnv.ServerUrl]) !== isGhes(process.env[ArtifactEnv.ServerUrl])) {
      differing.push(ArtifactEnv.ServerUrl);
    }
    if (differing.length > 0) {
      return {
        error: `the env given and process.env (which @actions/artifact reads) disagree on ${differing.join(', ')}: pass the runner's environment`
      };
    }
  }
  const {retentionDays} = opts;
  if (retentionDays !== undefined && (!Number.isInteger(retentionDays) || retentionDays < 1)) {
    return {error: `retention of ${retentionDays} days is not a whole number of days of at least 1`};
  }
  if (opts.name === '' || opts.name !== path.basename(opts.name)) {
    return {
      error: `artifact name ${JSON.stringify(opts.name)} is not a file name (a non-zipped artifact is named as its file)`
    };
  }
  const file = path.resolve(opts.filePath);
  if (!(await isFile(file))) return {error: `the record file ${file} does not exist`};
  let linkDir: string | undefined;
  try {
    // A non-zipped artifact takes its file's name: link the file under the artifact's name when they differ.
    let named = file;
    if (path.basename(file) !== opts.name) {
      linkDir = await mkdtemp(path.join(env.RUNNER_TEMP || tmpdir(), 'build-record-'));
      named = path.join(linkDir, opts.name);
      await symlink(file, named);
    }
    const {DefaultArtifactClient} = await loadArtifactModule();
    const uploaded = await new DefaultArtifactClient().uploadArtifact(opts.name, [named], path.dirname(named), {
      skipArchive: true,
      retentionDays
    });
    if (uploaded.id === undefined) return {error: 'the artifact service answered without an artifact id'};
    return {artifactId: uploaded.id, retentionDays: keptDays(retentionDays, env)};
  } catch (e) {
    return {error: oneLine(describe(e), token)};
  } finally {
    if (linkDir !== undefined) await rm(linkDir, {recursive: true, force: true}).catch(() => undefined);
  }
}

async function isFile(file: string): Promise<boolean> {
  try {
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}

/** Why there is no artifact service to upload to, or undefined when there is one. */
function skipReason(env: NodeJS.ProcessEnv): string | undefined {
  if (!env[ArtifactEnv.RuntimeToken] || !env[ArtifactEnv.ResultsUrl]) {
    return `no artifact service (${ArtifactEnv.RuntimeToken} and ${ArtifactEnv.ResultsUrl} are set only in a GitHub Actions job)`;
  }
  if (isGhes(env[ArtifactEnv.ServerUrl])) {
    return 'GitHub Enterprise Server has no artifact service for @actions/artifact v2+ (as docker, the record is not uploaded)';
  }
  return undefined;
}

/** @actions/artifact's own test (shared/config.ts isGhes), so that a skip is never reported as an error. */
function isGhes(serverUrl: string | undefined): boolean {
  let host: string;
  try {
    host = new URL(serverUrl || 'https://github.com').hostname.toUpperCase();
  } catch {
    return true;
  }
  return host !== 'GITHUB.COM' && !host.endsWith('.GHE.COM') && !host.endsWith('.LOCALHOST');
}

/** The retention the service was asked for: the request, shortened to the repository's limit as the client does. */
function keptDays(requested: number | undefined, env: NodeJS.ProcessEnv): number | undefined {
  const limit = Number.parseInt(env[ArtifactEnv.RetentionDays] ?? '', 10);
  if (Number.isNaN(limit)) return requested;
  return requested === undefined ? limit : Math.min(requested, limit);
}

/** The client's error; a blob storage error (@azure/storage-blob's RestError) says it was the blob upload. */
function describe(e: unknown): string {
  if (e instanceof Error && e.name === 'RestError') {
    const {statusCode, code} = e as Error & {statusCode?: number; code?: string};
    return `the blob upload was refused (${[statusCode, code].filter(x => x !== undefined).join(' ')}): ${e.message}`;
  }
  return errorMessage(e);
}

/** The first line of a client error, without the token or any URL signature. */
function oneLine(message: string, token: string): string {
  let line = message.split('\n').find(l => l.trim() !== '') ?? message;
  if (token !== '') line = line.split(token).join('***');
  return line.replace(/([?&]sig=)[^&\s]*/g, '$1***').trim();
}
