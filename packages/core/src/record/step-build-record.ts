import {renameSync, rmSync, statSync} from 'node:fs';
import {join} from 'node:path';
import {systemClock, type Clock} from '../clock.js';
import type {BuildMetadata} from '../docker/build-result.js';
import {errorMessage} from '../errors.js';
import type {Logger} from '../logger.js';
import type {BuildRecordEntry, BuildRecordReport, RecordUpload} from '../report/run-record.js';
import type {RunRecorder} from '../report/run-recorder.js';
import type {RecordNode} from './buildkit-history.js';
import type {DirectRecordExport} from './grpc-record-export.js';
import {exportRecord, type BuildxCommand, type RecordExport} from './record-export.js';
import {recordFileName} from './record-file-name.js';
import {recordSkipReason} from './record-gate.js';
import {exportPlan, type ExportPlan} from './record-plan.js';
import {refsFromFolder, refsFromMetadata, uniqueRefs} from './record-refs.js';
import {readRecordSwitches, RecordEnv, type RecordSwitches} from './record-switches.js';
import {preloadArtifactClient, uploadBuildRecord} from './record-upload.js';

/** Uploads a record file as one artifact; never throws (record-upload.ts's uploadBuildRecord in production). */
export type UploadRecord = (opts: {
  filePath: string;
  name: string;
  logger: Logger;
  env?: NodeJS.ProcessEnv;
  retentionDays?: number;
}) => Promise<RecordUpload>;

/** An export that wrote a file, with the builder it came from. */
type ExportedFile = RecordExport & {builder: string; filePath: string; fileName: string};

export interface StepBuildRecordOpts {
  /** Runs `docker buildx …` (Buildx.command). */
  buildx: BuildxCommand;
  logger: Logger;
  clock?: Clock;
  /** The step's environment (DOCKER_BUILD_RECORD_*, GITHUB_SERVER_URL). */
  env: NodeJS.ProcessEnv;
  /** The step's private folder: the record file is written there and removed after the upload. */
  dir: string;
  /** buildx's config dir (Buildx.configDir), asked at the export: the refs folder is `<it>/refs/<builder>/<node>/<ref>`. */
  configDir: () => string;
  /** `owner/repo`, for the file's name. */
  repository?: string;
  /** The buildx version this step measured (`docker buildx version`). */
  buildxVersion: string;
  /** DOCKER_BUILD_SUMMARY as the step read it. */
  summary: boolean;
  /** build-push's `call` input. */
  call?: string;
  /** The metadata file of the last build (its refs; a failed build has none: the refs folder has them). */
  readMetadata: () => BuildMetadata | undefined;
  /** Default uploadBuildRecord. */
  upload?: UploadRecord;
  signal?: AbortSignal;
  /** Reads the records from our builders' BuildKit directly (default exportRecordsGrpc). */
  direct?: DirectRecordExport;
  /** Time limit of each export (RECORD_EXPORT_BOUND_MS). */
  boundMs?: number;
}

/**
 * The step's build record, docker's `.dockerbuild`: `exportFrom` before each teardown of a builder the step
 * built on (the records live in its BuildKit), `publish` after the teardown (the upload needs no builder, so
 * the record adds only the export to the billed time), which records the BuildRecordReport. Nothing here
 * throws or fails the step.
 */
export class StepBuildRecord {
  readonly #opts: StepBuildRecordOpts;
  readonly #clock: Clock;
  readonly #skipped: string | undefined;
  readonly #plan: ExportPlan;
  readonly #switches: RecordSwitches;
  /** Builds after this (epoch ms) are the step's: the refs folder is read from it on. */
  readonly #since: number;
  readonly #exports: (RecordExport & {builder: string})[] = [];
  #told = false;

  constructor(opts: StepBuildRecordOpts) {
    this.#opts = opts;
    this.#clock = opts.clock ?? systemClock;
    this.#since = Date.now();
    this.#skipped = recordSkipReason(opts);
    this.#plan = exportPlan(opts.buildxVersion);
    this.#switches = this.#skipped === undefined ? readRecordSwitches(opts.env, opts.logger) : {upload: false};
    // The upload's client loads while the step waits for its builders, not after the teardown; so does the
    // direct export's code (record-export.ts imports it when it exports).
    if (this.#switches.upload && opts.upload === undefined) preloadArtifactClient(opts.env);
    if (this.#skipped === undefined && opts.direct === undefined)
      void import('./grpc-record-export.js').catch(() => undefined);
  }

  /** Why there is no record (docker's words), or undefined. */
  get skipped(): string | undefined {
    return this.#skipped;
  }

  /**
   * Exports the records of the step's builds on `builder` (every node, every attempt there) while it still
   * exists; call right after the build, before the teardown. Bounded (RECORD_EXPORT_BOUND_MS); never throws.
   * `nodes`: the builder's nodes when they are ours, whose BuildKit the records are read from directly.
   */
  async exportFrom(builder: string, nodes?: RecordNode[]): Promise<void> {
    const {logger} = this.#opts;
    if (this.#skipped !== undefined) {
      if (!this.#told) logger.info(`No build record: ${this.#skipped}`);
      this.#told = true;
      return;
    }
    const endedAt = this.#clock.now();
    const o = this.#opts;
    if (o.signal?.aborted) {
      this.#exports.push({skipped: 'the step was cancelled', entries: [], warnings: [], exportMs: 0, builder});
      return;
    }
    let metadata: BuildMetadata | undefined;
    try {
      metadata = o.readMetadata();
    } catch {
      metadata = undefined;
    }
    const refs = uniqueRefs([
      ...refsFromMetadata(metadata, builder),
      ...refsFromFolder(o.configDir(), builder, this.#since)
    ]);
    const exported = await logger.group(`Exporting the build record from builder "${builder}"`, async () => {
      const r = await exportRecord({
        buildx: o.buildx,
        logger,
        clock: this.#clock,
        builder,
        refs,
        plan: this.#plan,
        dir: o.dir,
        seq: this.#exports.length,
        repository: o.repository,
        endedAt,
        boundMs: o.boundMs,
        signal: o.signal,
        nodes,
        configDir: o.configDir(),
        direct: o.direct
      });
      // A failed export was its one warning line already; the rest (other nodes, a ref's facts) are info,
      // printed as untrusted: they quote buildx history's own errors.
      const failed = (w: string): boolean => r.skipped?.endsWith(w) === true;
      for (const w of r.warnings) if (!failed(w)) logger.untrusted(w);
      if (r.fileName !== undefined) {
        logger.info(`Exported ${r.fileName} (${r.sizeBytes} bytes, ${r.entries.length} builds) in ${r.exportMs} ms`);
      } else if (r.skipped !== undefined && !r.warnings.some(failed)) {
        logger.untrusted(`No build record: ${r.skipped}`);
      }
      return r;
    });
    this.#exports.push({...exported, builder});
  }

  /**
   * After the teardown: merges the exported files into the step's one record file when its builds went to
   * several builder sets (a retry on new builders), uploads it (unless DOCKER_BUILD_RECORD_UPLOAD=false),
   * removes the files, and records the report.
   */
  async publish(recorder: Pick<RunRecorder, 'buildRecord'>): Promise<BuildRecordReport> {
    const report = await this.#publish();
    recorder.buildRecord(report);
    return report;
  }

  async #publish(): Promise<BuildRecordReport> {
    const o = this.#opts;
    if (this.#skipped !== undefined) return {skipped: this.#skipped, entries: [], warnings: []};
    const exports = this.#exports.splice(0);
    const warnings = exports.flatMap(e => e.warnings);
    // The facts `history inspect` would give, read from each file now that no builder waits on them. Of
    // several files, one that cannot be read is left out of the merge, which says so.
    const several = exports.filter(e => e.filePath !== undefined).length > 1;
    for (const e of exports) {
      if (e.filePath === undefined) continue;
      const facts = await factsOf(e);
      if (facts.entries) e.entries = facts.entries;
      else if (!several) {
        o.logger.untrusted(facts.warning);
        warnings.push(facts.warning);
      }
    }
    const entries = exports.flatMap(e => e.entries);
    const exportMs = exports.reduce((sum, e) => sum + e.exportMs, 0);
    if (exports.length === 0) return {skipped: 'No build ran', entries, warnings};
    const files = exports.filter((e): e is ExportedFile => e.filePath !== undefined && e.fileName !== undefined);
    const file = await this.#oneFile(files, warnings);
    if (file === undefined) {
      const skipped =
        files.length > 0
          ? 'The build record could not be exported: no exported file could be read'
          : (exports[exports.length - 1]?.skipped ?? 'No build record');
      return {skipped, entries, warnings, exportMs};
    }
    const report: BuildRecordReport = {fileName: file.fileName, sizeBytes: file.sizeBytes, exportMs, entries, warnings};
    if (!this.#switches.upload) {
      o.logger.info(`Build record not uploaded: ${RecordEnv.Upload}=false`);
      report.upload = {skipped: `${RecordEnv.Upload}=false`};
    } else {
      const upload = o.upload ?? uploadBuildRecord;
      report.upload = await upload({
        filePath: file.filePath,
        name: file.fileName,
        logger: o.logger,
        env: o.env,
        retentionDays: this.#switches.retentionDays
      }).catch((e: unknown) => ({error: e instanceof Error ? e.message : String(e)}));
    }
    remove(file.filePath);
    return report;
  }

  /**
   * The step's one record file: the export's own when there is one, else every export's records merged into
   * one file named after all their refs (record-merge.ts); a file that cannot be merged is left out with a
   * warning. The merged inputs are removed.
   */
  async #oneFile(files: ExportedFile[], warnings: string[]): Promise<ExportedFile | undefined> {
    const [only] = files;
    if (files.length <= 1) return only;
    const {logger, dir, repository} = this.#opts;
    // Only a step whose builds moved to new builders gets here: the merge code is loaded for it alone.
    const {mergeRecordFiles} = await import('./record-merge.js');
    const refs = [...new Set(files.flatMap(f => f.refs ?? []))];
    const fileName = recordFileName(repository, refs);
    const filePath = join(dir, fileName);
    try {
      const merged = await mergeRecordFiles({
        files: files.map(f => ({path: f.filePath, label: `builder "${f.builder}"`, bundle: f.bundle})),
        output: filePath
      });
      for (const w of merged.warnings) logger.warning(`Build record: ${w}`);
      warnings.push(...merged.warnings);
      for (const f of files) if (f.filePath !== filePath) remove(f.filePath);
      if (merged.merged.length === 0) return undefined;
      const kept = files.filter(f => merged.merged.includes(f.filePath));
      const keptRefs = [...new Set(kept.flatMap(f => f.refs ?? []))];
      const name = recordFileName(repository, keptRefs);
      const path = join(dir, name);
      if (path !== filePath) renameSync(filePath, path);
      const sizeBytes = statSync(path).size;
      logger.info(
        `Merged the records of ${kept.length} builder sets into ${name} (${sizeBytes} bytes, ${merged.records} builds)`
      );
      return {...kept[kept.length - 1]!, filePath: path, fileName: name, sizeBytes, refs: keptRefs};
    } catch (e) {
      const last = files[files.length - 1]!;
      const why = `the record files could not be merged (${errorMessage(e)}): only ${last.fileName} is uploaded`;
      logger.warning(`Build record: ${why}`);
      warnings.push(why);
      for (const f of files) if (f !== last) remove(f.filePath);
      return last;
    }
  }
}

/** The facts of the builds in an export's file (record-facts.ts), or why it cannot be read. */
async function factsOf(
  e: RecordExport
): Promise<{entries: BuildRecordEntry[]; warning?: undefined} | {entries?: undefined; warning: string}> {
  const nodes = new Map(e.entries.map(x => [x.ref, x.node]));
  try {
    const [{recordFacts}, {readRecordBundle}] = await Promise.all([
      import('./record-facts.js'),
      import('./record-bundle.js')
    ]);
    // Read once: the merge of several builder sets' files takes the same bundle.
    e.bundle ??= await readRecordBundle(e.filePath!);
    return {entries: recordFacts(e.bundle, nodes)};
  } catch (err) {
    return {
      warning: `the builds' facts could not be read from ${e.fileName ?? 'the record file'}: ${errorMessage(err)}`
    };
  }
}

function remove(path: string | undefined): void {
  if (path) rmSync(path, {force: true});
}
