import type {BuilderDetails, BuilderInstance} from '../api/types.js';
import {readBuilderSize} from '../billing/builder-size.js';
import {isMultiArch} from '../billing/multi-arch.js';
import type {BuilderSize} from '../billing/price-table.js';
import {isBuilderSize} from '../billing/price-table.js';
import {errorMessage} from '../errors.js';
import type {StateStore} from '../state.js';
import {State} from '../state.js';
import type {AttemptRecord, BuilderRecord, BuildRecordReport, RunRecord, RunResult} from './run-record.js';

/** How many lines of a failure the report keeps. */
export const ERROR_TAIL_LINES = 12;

/** How many tags or bake targets the record keeps (it lives in the step state); the rest are counted. */
export const RESULT_LIST_CAP = 30;

export interface RunRecorderOpts {
  action: RunRecord['action'];
  state: StateStore;
  /** Wall clock (epoch ms): the report shows clock times. */
  now?: () => number;
  /** From an input, when the service does not say a builder's size. */
  sizeHint?: BuilderSize;
  /** Whether post writes the job summary (DOCKER_BUILD_SUMMARY as main saw it, before any export). */
  summary: boolean;
  /** Values that must never reach the summary (the API key); client keys seen in details are added. */
  secrets?: string[];
}

/** What a teardown achieved, as the record reads it (the lifecycle's TeardownReport has this shape). */
export interface TeardownFacts {
  tornDown: string[];
  alreadyGone: string[];
  failed: {id: string; error: string}[];
}

/** The record as saved for post: the report's facts plus whether to write it. Nothing secret. */
export interface SavedRun extends RunRecord {
  summary: boolean;
}

/**
 * RunRecorder keeps the facts the job summary reports (builders with their billing times, attempts, the
 * outcome) and saves them to the step state at every change, so post can report whatever happened to main,
 * even a kill. What goes in is scrubbed of the API key and every client key seen.
 */
export class RunRecorder {
  readonly #opts: RunRecorderOpts;
  readonly #now: () => number;
  readonly #secrets: string[];
  readonly #record: SavedRun;
  /** When the current setup began (the recorder's start, then the end of each attempt); undefined while building. */
  #setupFrom: number | undefined;

  constructor(opts: RunRecorderOpts) {
    this.#opts = opts;
    this.#now = opts.now ?? Date.now;
    this.#setupFrom = this.#now();
    this.#secrets = [...(opts.secrets ?? [])].filter(s => s !== '');
    this.#record = {
      action: opts.action,
      outcome: 'cancelled',
      phase: 'setup',
      builders: [],
      attempts: [],
      endedAt: this.#now(),
      summary: opts.summary
    };
  }

  /** A copy of the record so far. */
  get record(): SavedRun {
    return structuredClone(this.#record);
  }

  /** The phase main is in: reported as the failing phase when main ends without finish() (killed). */
  phase(phase: string): void {
    this.#record.phase = phase;
    if (phase === 'build') this.#endSetup();
    this.#save();
  }

  /** The builders are ready and set up in buildx (configure's end; a build step's is entering 'build'). */
  setUp(): void {
    this.#endSetup();
    this.#save();
  }

  /** Ends a setup: provisioning start (or the last attempt's end) → builder ready and set up in buildx. */
  #endSetup(): void {
    if (this.#setupFrom === undefined) return;
    this.#addTime('setupMs', this.#now() - this.#setupFrom);
    this.#setupFrom = undefined;
  }

  /** A build command ran outside the attempts (a shared or local fallback builder) for `buildMs`. */
  built(buildMs: number): void {
    this.#addTime('buildMs', buildMs);
    this.#save();
  }

  /** What the build produced; lists over RESULT_LIST_CAP are cut and counted. */
  result(r: RunResult): void {
    const out: RunResult = {
      builder: r.builder,
      fallback: r.fallback !== undefined ? this.#scrub(r.fallback) : undefined
    };
    if (r.image) {
      const {tags, moreTags: _more, ...image} = r.image;
      const more = tags.length - RESULT_LIST_CAP;
      out.image = {...image, tags: tags.slice(0, RESULT_LIST_CAP), moreTags: more > 0 ? more : undefined};
    }
    if (r.targets) {
      out.targets = r.targets.slice(0, RESULT_LIST_CAP);
      const more = r.targets.length - RESULT_LIST_CAP;
      if (more > 0) out.moreTargets = more;
    }
    this.#record.result = out;
    this.#save();
  }

  /** The step's build record: exported (or why not), then uploaded (or why not). Errors are scrubbed. */
  buildRecord(r: BuildRecordReport): void {
    this.#record.buildRecord = {
      ...r,
      entries: r.entries.map(e => (e.error !== undefined ? {...e, error: this.#scrub(e.error)} : e)),
      warnings: r.warnings.map(w => this.#scrub(w)),
      ...(r.skipped !== undefined ? {skipped: this.#scrub(r.skipped)} : {})
    };
    this.#save();
  }

  /**
   * An assignment answered. Billing started when the service processed it, somewhere between the request
   * (`requestedAt`, when known) and now: the request time is used, so billed time is never under-reported.
   */
  assigned(profile: string, instances: Pick<BuilderInstance, 'id'>[], requestedAt?: number): void {
    const at = requestedAt ?? this.#now();
    for (const inst of instances) {
      if (this.#record.builders.some(b => b.id === inst.id)) continue;
      const size = readBuilderSize(inst as Record<string, unknown>) ?? this.#opts.sizeHint;
      this.#record.builders.push({id: inst.id, profile, assignedAt: at, size});
    }
    this.#save();
  }

  /** A builder passed readiness: its arch and size as the details told them. */
  ready(id: string, details: BuilderDetails): void {
    if (details.metadata.client_key) this.#secrets.push(...secretLines(details.metadata.client_key));
    const b = this.#builder(id);
    if (!b) return;
    b.readyAt = this.#now();
    if (typeof details.arch === 'string' && details.arch !== '') b.arch = details.arch;
    const {metadata: _secretive, ...fields} = details;
    const size = readBuilderSize(fields) ?? b.size;
    if (size && isBuilderSize(size)) b.size = size;
    const multi = isMultiArch({arch: details.arch});
    if (multi !== undefined) b.multiArch = multi;
    this.#save();
  }

  /** What a teardown achieved: billing of those builders ended now (or earlier, for those already gone). */
  tornDown(report: TeardownFacts): void {
    const at = this.#now();
    for (const id of report.tornDown) this.#end(id, at, 'torn-down');
    for (const id of report.alreadyGone) this.#end(id, at, 'already-gone');
    for (const f of report.failed) {
      const b = this.#builder(f.id);
      if (b && b.teardown !== 'torn-down' && b.teardown !== 'already-gone') b.teardown = 'failed';
    }
    this.#save();
  }

  /** One build attempt ended; its build time is added to each builder it ran on. */
  attempt(a: AttemptRecord): void {
    this.#record.attempts.push({...a, reason: a.reason ? this.#scrub(a.reason) : a.reason});
    // A retry's setup (replacing or re-checking builders) starts here.
    this.#setupFrom = this.#now();
    if (a.buildMs !== undefined) {
      this.#addTime('buildMs', a.buildMs);
      for (const id of a.builderIds) {
        const b = this.#builder(id);
        if (b) b.buildMs = (b.buildMs ?? 0) + a.buildMs;
      }
    }
    this.#save();
  }

  /** main ends: success, or how it failed and where. */
  finish(outcome: RunRecord['outcome'], error?: unknown): void {
    this.#record.outcome = outcome;
    if (outcome === 'success') delete this.#record.phase;
    if (error !== undefined) {
      const lines = this.#scrub(errorMessage(error))
        .split(/\r?\n/)
        .map(l => l.trimEnd())
        .filter(l => l.trim() !== '');
      this.#record.errorTail = lines.slice(-ERROR_TAIL_LINES);
    }
    this.#record.endedAt = this.#now();
    this.#save();
  }

  /** Removes every known secret from a text (whole values and each line of multi-line ones). */
  #scrub(text: string): string {
    let out = text;
    for (const s of this.#secrets) if (s.length >= 4) out = out.split(s).join('***');
    return out;
  }

  #addTime(key: 'setupMs' | 'buildMs', ms: number): void {
    const timing = (this.#record.timing ??= {});
    timing[key] = (timing[key] ?? 0) + Math.max(0, ms);
  }

  #builder(id: string): BuilderRecord | undefined {
    return this.#record.builders.find(b => b.id === id);
  }

  #end(id: string, at: number, how: 'torn-down' | 'already-gone'): void {
    const b = this.#builder(id);
    if (!b) return;
    b.tornDownAt = at;
    b.teardown = how;
  }

  #save(): void {
    this.#opts.state.save(State.Run, JSON.stringify(this.#record));
  }
}

/** The record main saved, or undefined when it saved none or it is unreadable (post then reports nothing). */
export function loadRun(state: StateStore): SavedRun | undefined {
  const raw = state.get(State.Run);
  if (!raw) return undefined;
  try {
    const r = JSON.parse(raw) as SavedRun;
    return typeof r === 'object' && r !== null && Array.isArray(r.builders) && Array.isArray(r.attempts)
      ? r
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The record as post reports it: post's own teardown applied (billing of those builders ended now), the
 * end time now, and a main that never finished (killed by the runner) reported as cancelled in its phase.
 */
export function closeRun(run: SavedRun, postTeardown: TeardownFacts, now: number): RunRecord {
  const {summary: _summary, ...record} = structuredClone(run);
  for (const b of record.builders) {
    if (postTeardown.tornDown.includes(b.id)) Object.assign(b, {tornDownAt: now, teardown: 'torn-down'});
    else if (postTeardown.alreadyGone.includes(b.id)) Object.assign(b, {tornDownAt: now, teardown: 'already-gone'});
    else if (postTeardown.failed.some(f => f.id === b.id)) b.teardown = 'failed';
  }
  record.endedAt = now;
  return record;
}

function secretLines(value: string): string[] {
  const trimmed = value.trim();
  return [trimmed, ...trimmed.split(/\r?\n/).map(l => l.trim())].filter(
    l => l.length >= 8 && !/^-----(BEGIN|END) [A-Z0-9 ]+-----$/.test(l)
  );
}
