import {statSync} from 'node:fs';
import {writeFile} from 'node:fs/promises';
import {join} from 'node:path';
import type {Clock} from '../clock.js';
import {errorMessage} from '../errors.js';
import {lastLine, type ExecResult} from '../exec.js';
import type {Logger} from '../logger.js';
import type {BuildRecordEntry} from '../report/run-record.js';
import type {RecordNode} from './buildkit-history.js';
import type {DirectRecordExport} from './grpc-record-export.js';
import {historyExportArgs} from './record-args.js';
import type {RecordBundle} from './record-bundle.js';
import {recordFileName} from './record-file-name.js';
import {SETTLE_MS, type ExportPlan} from './record-plan.js';
import type {RecordRef} from './record-refs.js';

/**
 * The longest the record may hold a builder before its teardown: the wait without --finalize and `history
 * export` together. Past it the export is abandoned (its process killed),
 * with one warning, and the teardown goes ahead.
 */
export const RECORD_EXPORT_BOUND_MS = 20_000;

/**
 * The longest the direct export (our own gRPC client) may take before buildx is asked instead: a BuildKit
 * answers the history of one step in well under a second; a front that takes the calls and never answers
 * must leave buildx most of RECORD_EXPORT_BOUND_MS.
 */
export const DIRECT_EXPORT_BOUND_MS = 8_000;

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
  /**
   * The nodes of the builder when they are ours (endpoint and TLS material): the records are then read from
   * their BuildKit directly (grpc-record-export.ts), and buildx exports them only when that fails.
   */
  nodes?: RecordNode[];
  /** buildx's config dir (the builds' local state), for the direct export. */
  configDir?: string;
  /** The direct export (default exportRecordsGrpc); tests inject their own. */
  direct?: DirectRecordExport;
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
  /** What the file holds, when the export had it in memory (the direct read): not read back from the file. */
  bundle?: RecordBundle;
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
    if (opts.nodes && opts.nodes.length > 0) {
      const settle = (): Promise<void> =>
        clock.sleep(Math.max(0, Math.min(opts.endedAt + SETTLE_MS - clock.now(), left())), limit.signal);
      const directLimit = clock.deadline(Math.min(DIRECT_EXPORT_BOUND_MS, left()), {parents: [limit.signal]});
      const direct = await exportDirect({
        ...opts,
        nodes: opts.nodes,
        refs,
        filePath,
        signal: directLimit.signal,
        settle
      });
      directLimit.dispose();
      if (direct.done) {
        // Every node's record was read: the one-node lines of an older buildx do not apply.
        warnings.splice(0, warnings.length, ...direct.warnings);
        const {sizeBytes, refs: found, entries: built, bundle} = direct;
        return done({filePath, fileName, sizeBytes, refs: found, entries: built, bundle});
      }
      if (direct.noRecord) return done({skipped: noHistory(opts.builder), entries});
      // It quotes BuildKit's answer: untrusted.
      logger.untrusted(`The record could not be read from BuildKit directly (${direct.why}): buildx exports it`);
      if (opts.signal?.aborted) throw new Error('cancelled');
    }
    const wait = opts.endedAt + plan.settleMs - clock.now();
    if (wait > 0) await clock.sleep(Math.min(wait, left()), limit.signal);
    const res = await run(args);
    if (res.exitCode !== 0 && !res.killed && /no record found/i.test(lastLine(res))) {
      return done({skipped: noHistory(opts.builder), entries});
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

type DirectResult =
  | {
      done: true;
      sizeBytes: number;
      refs: string[];
      entries: BuildRecordEntry[];
      warnings: string[];
      bundle: RecordBundle;
    }
  | {done: false; why: string; noRecord?: boolean};

/**
 * The records read from the nodes' BuildKit by our own gRPC client and written as buildx writes them: every
 * node's record of each ref, finalized first (what buildx >= 0.33 does with --finalize), without buildx's
 * start. Never throws: a failure is `why`, and the caller has buildx export instead.
 */
async function exportDirect(
  opts: Omit<RecordExportOpts, 'refs' | 'nodes'> & {
    nodes: RecordNode[];
    refs: NodesOfRef[];
    filePath: string;
    signal: AbortSignal;
    settle: () => Promise<void>;
  }
): Promise<DirectResult> {
  let grpc: typeof import('./grpc-record-export.js') | undefined;
  try {
    // Loaded when a step exports (its tar and protobuf code is no part of the step's start).
    grpc = await import('./grpc-record-export.js');
    const res = await (opts.direct ?? grpc.exportRecordsGrpc)({
      builder: opts.builder,
      nodes: opts.nodes,
      refs: opts.refs.map(r => r.ref),
      configDir: opts.configDir ?? '',
      signal: opts.signal,
      settle: opts.settle
    });
    const {writeRecordBundle} = await import('./record-merge.js');
    const data = await writeRecordBundle([res.bundle]);
    await writeFile(opts.filePath, data);
    const found = opts.refs.filter(r => !res.missing.includes(r.ref));
    const nodesOf = (ref: string): string =>
      [...new Set(res.records.filter(x => x.ref === ref).map(x => x.node))].join(',');
    return {
      done: true,
      sizeBytes: data.length,
      bundle: res.bundle,
      refs: found.map(r => r.ref),
      entries: found.map(r => ({ref: r.ref, node: nodesOf(r.ref)})),
      warnings: res.missing.map(
        ref => `no record of build ${ref.slice(0, 6).toUpperCase()} on builder "${opts.builder}": BuildKit kept none`
      )
    };
  } catch (e) {
    return {done: false, why: errorMessage(e), noRecord: grpc !== undefined && e instanceof grpc.NoRecordError};
  }
}

function noHistory(builder: string): string {
  return `No build record on builder "${builder}": its BuildKit keeps no history of the step's builds (history turned off, or the records were deleted)`;
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
