import type {BuilderSize} from '../billing/price-table.js';
import type {CacheReport} from '../docker/cache-report.js';

/** What happened to a builder at the end: the billing question of the report. */
export type TeardownOutcome =
  /** Teardown answered: billing stopped at tornDownAt. */
  | 'torn-down'
  /** The service no longer had it (idle time-out, …): billing stopped at some time before tornDownAt. */
  | 'already-gone'
  /** Teardown failed: the builder may still be billed. */
  | 'failed'
  /** Teardown has not run: the builder is still billed. */
  | 'pending';

/** One assigned builder, as main and post saw it. Times are epoch milliseconds of one clock. */
export interface BuilderRecord {
  id: string;
  profile: string;
  /** The builder's arch as the service reported it ("amd64", "amd64,arm64"), when it did. */
  arch?: string;
  /** Row of the price table (readBuilderSize / parseBuilderSize), when known. */
  size?: BuilderSize;
  /** isMultiArch of the builder; undefined when unknown (the price is then unknown too). */
  multiArch?: boolean;
  assignedAt: number;
  readyAt?: number;
  buildMs?: number;
  /** When teardown answered (or found the builder gone). */
  tornDownAt?: number;
  /** Defaults to 'torn-down' when tornDownAt is set, else 'pending'. */
  teardown?: TeardownOutcome;
}

/** How one build attempt ended. */
export type AttemptOutcome = 'success' | 'infrastructure' | 'user' | 'unknown' | 'cancelled' | 'timeout';

/** One build attempt (a retry on new builders is a new attempt). */
export interface AttemptRecord {
  /** 1, 2, … */
  n: number;
  builderIds: string[];
  outcome: AttemptOutcome;
  /** Why it ended that way, one line (for a retry: why it was retried). */
  reason?: string;
  buildMs?: number;
  cache?: CacheReport;
}

/** One bake target as built: its platforms and the digest the metadata file gave. */
export interface TargetResult {
  name: string;
  platforms: string[];
  digest?: string;
}

/**
 * What the build produced, as main recorded it for the job summary (public facts only). Lists are capped
 * (RESULT_LIST_CAP in run-recorder.ts) since the record lives in the step state; `more` counts the rest.
 */
export interface RunResult {
  /** The buildx builder the step built on (or made, for configure). */
  builder?: string;
  /** Set when the build ran on a local fallback builder: why no remote builder could be had. */
  fallback?: string;
  /** build-push: the image. */
  image?: {digest?: string; imageId?: string; tags: string[]; moreTags?: number};
  /** bake: each target. */
  targets?: TargetResult[];
  moreTargets?: number;
}

/** Where the step's time went, ms: setup (provisioning start → builder ready and set up in buildx), build and push. */
export interface RunTiming {
  setupMs?: number;
  /** The buildx build/bake command, summed over attempts. */
  buildMs?: number;
}

/**
 * One build as the builder's BuildKit history recorded it (its record in the exported file, read as `buildx
 * history inspect` reads it), for docker's summary table (ID, Name, Status, Cached, Duration) and its error block.
 */
export interface BuildRecordEntry {
  /** The history ref (BuildKit's build id). The table's ID is its first 6 characters, upper case. */
  ref: string;
  /** The buildx node whose BuildKit holds it. */
  node?: string;
  name?: string;
  /** `completed`, `failed`, `canceled`, or what a newer buildx says. */
  status?: string;
  durationMs?: number;
  numCachedSteps?: number;
  numTotalSteps?: number;
  numCompletedSteps?: number;
  /** A failed build's error message (scrubbed), as its history record holds it. */
  error?: string;
}

/** The upload of the record file as a GitHub artifact (after the teardown). */
export interface RecordUpload {
  /** The artifact's id, as the artifact service answered (the summary links to it). */
  artifactId?: number;
  /** Why nothing was uploaded (DOCKER_BUILD_RECORD_UPLOAD=false, GHES, …), one line. */
  skipped?: string;
  /** Why the upload failed, one line (a warning; never a failed step). */
  error?: string;
  retentionDays?: number;
}

/**
 * The step's build record (`buildx history export`, docker's `.dockerbuild`): what was exported before the
 * teardown, and what became of the upload. Exactly one of `skipped` or `fileName` is set.
 */
export interface BuildRecordReport {
  /** Why there is no record, one line, in docker's words where docker has them. */
  skipped?: string;
  /** docker's name: `<owner>~<repo>~<REF6>[+<N-1>].dockerbuild`. */
  fileName?: string;
  sizeBytes?: number;
  /** How long the export took, while the builders were still billed. */
  exportMs?: number;
  /** Every build of the step, across nodes and attempts. */
  entries: BuildRecordEntry[];
  /** What could not be exported (a node, a ref) and why, one line each. */
  warnings: string[];
  upload?: RecordUpload;
}

/**
 * Phases of a step that fail before anything is assigned (nothing billed): main records them as a run with no
 * builder, so post writes a short failure block for them too.
 */
export enum EarlyPhase {
  /** An input is invalid (InputError). */
  Inputs = 'inputs',
  /** The `buildx-version` download or install. */
  BuildxInstall = 'buildx install',
  /** The local checks: buildx present and recent enough, the action's own (bake's definition, load, …). */
  LocalChecks = 'local checks'
}

/** Everything the job summary reports about one action step. */
export interface RunRecord {
  action: 'configure' | 'build-push' | 'bake';
  outcome: 'success' | 'failure' | 'cancelled' | 'timeout';
  /** For a failure (or timeout): the phase that failed, e.g. "assign", "readiness", "buildx setup", "build". */
  phase?: string;
  /** The last lines of the error, oldest first. Secrets must already be removed. */
  errorTail?: string[];
  builders: BuilderRecord[];
  attempts: AttemptRecord[];
  /** What the build produced, when it got that far. */
  result?: RunResult;
  timing?: RunTiming;
  /** The build record (build-push, bake), when the step got as far as a build. */
  buildRecord?: BuildRecordReport;
  /** When the step ended (post): "now" for a builder that is still billed. */
  endedAt: number;
}
