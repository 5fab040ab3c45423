import {versionAtLeast} from '../docker/version-gate.js';

/** buildx >= 0.24 has `history export --finalize` (docker/buildx#3152): BuildKit writes the trace at once. */
export const FINALIZE_MIN_BUILDX = '0.24.0';

/**
 * buildx >= 0.33 exports the record of a ref from every node that has it, each finalized on its own node;
 * before, `history export <ref>` keeps the newest record of the ref across the builder's nodes (one node's).
 */
export const EVERY_NODE_MIN_BUILDX = '0.33.0';

/**
 * Without --finalize, how long after the build ended the record's trace may still be written (docker's post
 * step sleeps this long, `Sleep 3 seconds to wait for the build records to be finalized`). Our wait counts
 * from the end of the build, so the `history inspect` calls run inside it, and it is the only wait.
 */
export const SETTLE_MS = 3000;

/** What `buildx history export` can do with the step's buildx, for a builder of one or more nodes. */
export interface ExportPlan {
  /** Pass --finalize. */
  finalize: boolean;
  /** Every node's record of a ref is exported (else one node's per ref: the newest). */
  everyNode: boolean;
  /** Wait this long after the build ended before exporting (0 with --finalize). */
  settleMs: number;
}

/** The plan for `buildxVersion` (the measured one): see FINALIZE_MIN_BUILDX and EVERY_NODE_MIN_BUILDX. */
export function exportPlan(buildxVersion: string): ExportPlan {
  const finalize = versionAtLeast(buildxVersion, FINALIZE_MIN_BUILDX);
  return {
    finalize,
    everyNode: versionAtLeast(buildxVersion, EVERY_NODE_MIN_BUILDX),
    settleMs: finalize ? 0 : SETTLE_MS
  };
}
