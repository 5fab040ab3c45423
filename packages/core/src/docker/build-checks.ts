// Build checks (Dockerfile lint warnings) as GitHub annotations, the way docker's build-push-action v7.3.0 and
// bake-action v7.1.0 make them (@docker/actions-toolkit 0.92.0 / 0.87.0, identical here:
// Buildx.convertWarningsToGitHubAnnotations, Build/Bake.resolveWarnings, Bake.resolveRefs, Buildx.localState).
//
// The Dockerfile of each build is found as docker finds it: through the local state buildx keeps for every
// build ref in <buildx config dir>/refs/<builder>/<node>/<id>. The buildx client writes it on the runner
// whatever the driver (build/localstate.go), so a remote builder has it too; `buildx history` is not needed.
import {join} from 'node:path';
import type {AnnotationProperties, Logger} from '../logger.js';
import type {BuildMetadata} from './build-result.js';
import {CONVERT, findDockerfiles, type CheckedDockerfile} from './dockerfile-lookup.js';
import {GitHubContext} from './github-context.js';
import {parseDockerBool} from './input-list.js';

/** The variable that turns the annotations off (docker's name and parsing). */
export const BUILD_CHECKS_ANNOTATIONS_ENV = 'DOCKER_BUILD_CHECKS_ANNOTATIONS';

/** One warning of `buildx.build.warnings` in the metadata file (BuildKit's client.VertexWarning as JSON). */
export interface VertexWarning {
  vertex?: string;
  level?: number;
  /** Base64 of e.g. `FromAsCasing: 'as' and 'FROM' keywords' casing do not match (line 1)`. */
  short?: string;
  /** Base64 lines of the rule's description. */
  detail?: string[];
  url?: string;
  sourceInfo?: {filename?: string; data?: string; language?: string; definition?: unknown};
  range?: {start?: {line?: number; character?: number}; end?: {line?: number; character?: number}}[];
}

/** One annotation, in docker's shape and key order ({title, message, file, startLine}). */
export interface BuildCheckAnnotation {
  title: string;
  message: string;
  file: string;
  startLine?: number;
}

/**
 * Whether to annotate build checks: on unless DOCKER_BUILD_CHECKS_ANNOTATIONS is a false value of docker's
 * parseBool. docker fails the step on a value that is not a boolean (after the build); we warn and keep them
 * on, as DOCKER_BUILD_SUMMARY does here.
 */
export function buildChecksAnnotationsEnabled(io: StepIO): boolean {
  const value = io.env[BUILD_CHECKS_ANNOTATIONS_ENV];
  if (!value) return true;
  try {
    return parseDockerBool(value);
  } catch {
    io.logger.warning(
      `${BUILD_CHECKS_ANNOTATIONS_ENV}="${value}" is not a boolean (use true or false); annotating build checks`
    );
    return true;
  }
}

/** docker's resolveWarnings (build and bake alike): the top-level `buildx.build.warnings`. */
export function metadataWarnings(metadata: BuildMetadata | undefined): VertexWarning[] | undefined {
  if (!metadata || !('buildx.build.warnings' in metadata)) return undefined;
  const warnings = metadata['buildx.build.warnings'];
  return Array.isArray(warnings) ? (warnings as VertexWarning[]) : undefined;
}

/**
 * The build refs of the metadata: build-push's `buildx.build.ref`; bake's `buildx.build.ref` of each target,
 * in the file's key order (Bake.resolveRefs). docker falls back to the newest files of the refs folder when
 * the metadata has none; buildx writes the ref since 0.13 and warnings only since 0.16, so with warnings the
 * ref is always there and that fallback is left out.
 */
export function metadataBuildRefs(metadata: BuildMetadata | undefined, action: 'build-push' | 'bake'): string[] {
  if (!metadata) return [];
  const refOf = (entry: unknown): string | undefined => {
    if (!entry || typeof entry !== 'object' || !('buildx.build.ref' in entry)) return undefined;
    const ref = (entry as Record<string, unknown>)['buildx.build.ref'];
    return typeof ref === 'string' && ref !== '' ? ref : undefined;
  };
  const refs = action === 'bake' ? Object.values(metadata).map(refOf) : [refOf(metadata)];
  return refs.filter((r): r is string => r !== undefined);
}

/**
 * The annotations of the warnings, one at most per warning, in the warnings' order (no deduplication): a
 * warning needs `short`, `detail` and sourceInfo's filename and data; it goes to the first Dockerfile that is
 * remote, or whose path ends with the filename and whose content equals the data. Title: the detail lines
 * decoded and joined by a space; message: `short` decoded without its ` (line N)` tail, plus
 * `\nMore info: <url>`; startLine: the first range's start line only (no endLine, no columns), as GitHub
 * shows ranges poorly (https://github.com/orgs/community/discussions/129899).
 */
export function warningsToAnnotations(
  warnings: VertexWarning[],
  dockerfiles: CheckedDockerfile[],
  logger: Logger
): BuildCheckAnnotation[] {
  const annotations: BuildCheckAnnotation[] = [];
  for (const warning of warnings) {
    if (!warning.detail || !warning.short) {
      logger.debug(`${CONVERT}: skipping warning without detail or short`);
      continue;
    }
    const filename = warning.sourceInfo?.filename;
    const data = warning.sourceInfo?.data;
    if (!filename || !data) {
      logger.debug(`${CONVERT}: skipping warning without source info filename or data`);
      continue;
    }
    let title: string;
    let message: string;
    try {
      // atob, as docker decodes: each byte becomes one character (Latin-1), not UTF-8.
      title = (Array.isArray(warning.detail) ? warning.detail : []).map(d => atob(String(d))).join(' ');
      message = atob(String(warning.short)).replace(/\s\(line \d+\)$/, '');
    } catch (e) {
      // docker's atob throws on invalid base64 and fails the step; buildx never writes that.
      logger.debug(`${CONVERT}: skipping warning that is not base64: ${(e as Error).message}`);
      continue;
    }
    if (warning.url) message += `\nMore info: ${warning.url}`;
    const first = warning.range && warning.range.length > 0 ? warning.range[0] : undefined;
    const startLine = first?.start?.line;

    const dockerfile = dockerfiles.find(d => d.remote || (d.path.endsWith(filename) && d.content === data));
    if (!dockerfile) {
      logger.debug(`${CONVERT}: skipping warning without matching Dockerfile ${filename}: ${title}`);
      continue;
    }
    annotations.push({title, message, file: dockerfile.path, startLine});
  }
  return annotations;
}

/** What the checks read of the step: its environment and its logger (ActionIO has both). */
export interface StepIO {
  logger: Logger;
  env: NodeJS.ProcessEnv;
}

export interface AnnotateBuildChecksOpts {
  io: StepIO;
  /** The step's buildx (Buildx): its config folder holds the refs' local state. */
  buildx: {configDir(): string};
  action: 'build-push' | 'bake';
  /** The metadata file of the build (bake: keyed by target, warnings at the top). */
  metadata: BuildMetadata | undefined;
  /** Default process.cwd(). */
  cwd?: string;
}

/**
 * After a build: the build-check warnings of the metadata as warning annotations on the Dockerfile lines,
 * in a group `Generating GitHub annotations (N build checks found)`, exactly as docker's actions print them.
 * Nothing without warnings, without a build ref, or when DOCKER_BUILD_CHECKS_ANNOTATIONS is false.
 * Returns the annotations made.
 */
export async function annotateBuildChecks(opts: AnnotateBuildChecksOpts): Promise<BuildCheckAnnotation[]> {
  const {logger, env} = opts.io;
  if (!buildChecksAnnotationsEnabled(opts.io)) return [];
  const warnings = metadataWarnings(opts.metadata);
  const refs = metadataBuildRefs(opts.metadata, opts.action);
  if (refs.length === 0 || !warnings || warnings.length === 0) return [];
  const cwd = opts.cwd ?? process.cwd();
  const dockerfiles = findDockerfiles(refs, {
    logger,
    refsDir: join(opts.buildx.configDir(), 'refs'),
    workspace: env['GITHUB_WORKSPACE'] || cwd,
    repository: new GitHubContext(env).repository,
    cwd
  });
  if (dockerfiles.length === 0) {
    logger.debug(`${CONVERT}: no Dockerfiles found`);
    logger.debug('annotations: undefined');
    return [];
  }
  logger.debug(`${CONVERT}: found ${dockerfiles.length} Dockerfiles: ${JSON.stringify(dockerfiles, null, 2)}`);
  const annotations = warningsToAnnotations(warnings, dockerfiles, logger);
  logger.debug(`annotations: ${JSON.stringify(annotations, null, 2)}`);
  if (annotations.length > 0) {
    await logger.group(`Generating GitHub annotations (${annotations.length} build checks found)`, async () => {
      for (const a of annotations) logger.warning(a.message, annotationProperties(a));
    });
  }
  return annotations;
}

/** What docker hands to core.warning besides the message (toCommandProperties keeps these). */
function annotationProperties(a: BuildCheckAnnotation): AnnotationProperties {
  return {title: a.title, file: a.file, ...(a.startLine !== undefined ? {startLine: a.startLine} : {})};
}
