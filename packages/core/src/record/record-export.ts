import {statSync} from 'node:fs';
import {join} from 'node:path';
import type {Clock} from '../clock.js';
import {errorMessage} from '../errors.js';
import {lastLine, type ExecResult} from '../exec.js';
import type {Logger} from '../logger.js';
import type {BuildRecordEntry} from '../report/run-record.js';
import {historyExportArgs} from './record-args.js';
import {recordFileName} from './record-file-name.js';
import type {ExportPlan} from './record-plan.js';
import type {RecordRef} from './record-refs.js';

/**
 * The longest the record may hold a builder before its teardown: the wait without --finalize and `history
 * export` together. Past it the export is abandoned (its process killed),
 * with one warning, and the teardown goes ahead.
 */
export const RECORD_EXPORT_BOUND_MS = 20_000;

export interface RecordExportOpts {
  /** Runs `docker buildx <args>` (`buildx` first; Buildx.command: as the plugin itself where it can). */
  buildx: BuildxCommand;
  logger: Logger;
  clock: Clock;
  /** The buildx builder the refs are on. */
  builder: string;
  /** The step's refs on `builder`, every node's (refsFromMetadata, refsFromFolder). */
  refs: RecordRef[];
  plan: ExportPlan;
  /** The folder the file is written to (the step's private one). */
  dir: string;
  /**
   * The export's number in the step, from 0: a later one's file is `<seq>.<name>`, so that two builder sets'
   * files never overwrite each other (their names come from 6 characters of a ref).
   */
  seq?: number;
  /** `owner/repo`, for the file's name. */
  repository?: string;
  /** When the build ended (ms of `clock`): the wait without --finalize counts from it. */
  endedAt: number;
  /** Default RECORD_EXPORT_BOUND_MS. */
  boundMs?: number;
  /** Cancellation of the step: the export stops at once. */
  signal?: AbortSignal;
}

/** Runs one `docker buildx …` command (Buildx.command). */
export type BuildxCommand = (
  args: string[],
  opts: {silent?: boolean; timeoutMs?: number; signal?: AbortSignal}
) => Promise<ExecResult>;

/** What one export before a teardown left. Exactly one of `skipped` and `filePath` is set. */
export interface RecordExport {
  skipped?: string;
  filePath?: string;
  fileName?: string;
  sizeBytes?: number;
  /** The refs the file holds (with `filePath`), in the order asked. */
  refs?: string[];
  exportMs: number;
  /**
   * One entry per ref with the nodes that built it, and nothing more: the facts (name, status, duration, …)
   * are read from the file after the teardown (record-facts.ts).
   */
  entries: BuildRecordEntry[];
  /** What could not be had (a ref's facts, other nodes' records, the file), one line each. */
  warnings: string[];
}

/**
 * Exports the records of `refs` from the builder's BuildKit into one `.dockerbuild` file while the builder
 * exists: one `history export` of every ref, with --finalize (buildx >= 0.24) or after the bounded wait, all
 * within `boundMs`. That is all that holds the builder: the summary's facts, which `history inspect` would give,
 * are in the file, read after the teardown. Never throws: what failed is in `warnings` (a failed export also as
 * one warning line in the log), and the caller tears down as usual.
 */
export async function exportRecord(opts: RecordExportOpts): Promise<RecordExport> {
  const {clock, logger, plan} = opts;
  const started = clock.now();
  const boundMs = opts.boundMs ?? RECORD_EXPORT_BOUND_MS;
  const refs = byRef(opts.refs);
  const warnings = plan.everyNode ? [] : oneNodeWarnings(refs);
  const done = (r: Omit<RecordExport, 'exportMs' | 'warnings'>): RecordExport => ({
    ...r,
    warnings,
    exportMs: clock.now() - started
  });
  if (refs.length === 0) return done({skipped: 'Build summary requires a build reference', entries: []});

  const limit = clock.deadline(boundMs, {parents: [opts.signal]});
  const left = (): number => Math.max(1, boundMs - (clock.now() - started));
  const run = (args: string[]): Promise<ExecResult> =>
    opts.buildx(args, {silent: true, timeoutMs: left(), signal: limit.signal});
  const fileName = recordFileName(
    opts.repository,
    refs.map(r => r.ref)
  );
  const filePath = join(opts.dir, opts.seq ? `${opts.seq}.${fileName}` : fileName);
  const args = historyExportArgs({
    builder: opts.builder,
    output: filePath,
    refs: refs.map(r => r.ref),
    finalize: plan.finalize
  });
  const entries: BuildRecordEntry[] = refs.map(r => ({ref: r.ref, node: r.nodes.join(',')}));
  try {
    const wait = opts.endedAt + plan.settleMs - clock.now();
    if (wait > 0) await clock.sleep(Math.min(wait, left()), limit.signal);
    const res = await run(args);
    if (res.exitCode !== 0 && !res.killed && /no record found/i.test(lastLine(res))) {
      return done({
        skipped: `No build record on builder "${opts.builder}": its BuildKit keeps no history of the step's builds (history turned off, or the records were deleted)`,
        entries
      });
    }
    const failed = exportFailure(res, opts.signal, boundMs);
    if (failed !== undefined) {
      if (res.stderr.trim() !== '') logger.untrusted(res.stderr.trim());
      logger.warning(`Build record not exported: ${failed}; the builder is torn down as usual`);
      warnings.push(failed);
      return done({skipped: `The build record could not be exported: ${failed}`, entries});
    }
    const sizeBytes = fileSize(filePath);
    if (sizeBytes === undefined) {
      const why = `buildx history export wrote no ${fileName}`;
      logger.warning(`Build record not exported: ${why}; the builder is torn down as usual`);
      warnings.push(why);
      return done({skipped: `The build record could not be exported: ${why}`, entries});
    }
    return done({filePath, fileName, sizeBytes, refs: refs.map(r => r.ref), entries});
  } catch (e) {
    // Only the wait throws: the bound ran out, or the step was cancelled.
    const why = opts.signal?.aborted
      ? 'the step was cancelled'
      : `it did not finish within ${boundMs / 1000} s (${errorMessage(e)})`;
    logger.warning(`Build record not exported: ${why}; the builder is torn down as usual`);
    warnings.push(why);
    return done({skipped: `The build record could not be exported: ${why}`, entries});
  } finally {
    limit.dispose();
  }
}

/** One ref with the nodes that built it. */
interface NodesOfRef {
  ref: string;
  nodes: string[];
}

function byRef(refs: RecordRef[]): NodesOfRef[] {
  const out = new Map<string, string[]>();
  for (const r of refs) {
    const nodes = out.get(r.ref) ?? [];
    if (!nodes.includes(r.node)) nodes.push(r.node);
    out.set(r.ref, nodes);
  }
  return [...out].map(([ref, nodes]) => ({ref, nodes}));
}

/** buildx < 0.33 exports the newest record of a ref across the nodes: one line for each ref several nodes built. */
function oneNodeWarnings(refs: NodesOfRef[]): string[] {
  return refs
    .filter(r => r.nodes.length > 1)
    .map(
      r =>
        `build ${r.ref.slice(0, 6).toUpperCase()} ran on nodes ${r.nodes.join(', ')}: buildx < 0.33 exports one node's record of it (the newest); buildx >= 0.33 exports each node's ("buildx-version: latest")`
    );
}

/** Why `history export` gave no file, one line; undefined when it did. */
function exportFailure(res: ExecResult, signal: AbortSignal | undefined, boundMs: number): string | undefined {
  if (signal?.aborted || res.killed === 'aborted') {
    return signal?.aborted ? 'the step was cancelled' : `it did not finish within ${boundMs / 1000} s`;
  }
  if (res.killed === 'timeout') return `it did not finish within ${boundMs / 1000} s`;
  if (res.exitCode !== 0) {
    return `buildx history export failed: ${lastLine(res)}`;
  }
  return undefined;
}

function fileSize(path: string): number | undefined {
  try {
    return statSync(path).size;
  } catch {
    return undefined;
  }
}
