/**
 * How many build steps ran and how many BuildKit answered from its cache, read from the progress output
 * buildx prints in plain mode (`--progress=plain`, which is also what `auto` picks when stderr is not a
 * terminal, as in our actions). Why that source: the plain format has been the same from buildx 0.10
 * (BuildKit 0.11's progressui/printer.go) to today, while `--progress=rawjson` needs buildx ≥ 0.12 and
 * `docker buildx history inspect` ("Build Steps: 5/7 (71% cached)") needs buildx ≥ 0.20 and a second
 * command after the build. What printer.go writes, per vertex, with a number fixed for the whole run:
 *
 *   #7 [base 4/4] RUN echo hi        the name, first thing printed for a vertex; again after a blank line
 *   #7 0.216 hi                      logs and progress of the vertex
 *   #7 ...                           the printer switched to another vertex; it comes back later
 *   #7 CACHED | #7 DONE 0.2s | #7 ERROR: … | #7 CANCELED     how it ended, printed once, last
 *
 * A build step is a vertex the Dockerfile frontend names `[<platform> <stage> n/m] INSTRUCTION`
 * (dockerfile2llb prefixCommand: COPY, ADD, RUN, WORKDIR; the number is padded: `[ 1/12]`). In a bake of
 * several targets buildx puts the target first: `[app base 2/4] RUN …`, `[app internal] load …`.
 * Not counted: `[internal] …` metadata and context vertices, exporting, pushing, and FROM: pulling a base
 * image is not a build step, and whether BuildKit marks it CACHED depends on the worker (dockerd's BuildKit
 * prints `DONE 0.0s` for an image it already has), so counting it would make a fully cached build look
 * partly cold. Steps that never started are not printed, so not counted (a failed build reports the steps
 * it reached).
 */

/** Steps of a build and how many came from the cache. */
export interface StepCounts {
  steps: number;
  cached: number;
  /** cached / steps, 0 to 1. */
  ratio: number;
}

/** The cache report of one buildx run. */
export interface CacheReport extends StepCounts {
  /**
   * Per bake target, for a bake of several targets. A step several targets share (same instruction on
   * the same input) is run once by BuildKit and counted under each target that shows it, so the
   * targets' counts can add up to more than the total.
   */
  targets?: Record<string, StepCounts>;
}

export interface CacheReportOpts {
  /**
   * The bake targets this run built (after resolving groups). With two or more, buildx prefixes every vertex
   * with its target's name; naming them makes the per-target split exact. Without them the parser finds
   * the targets from the `[<target> internal]` vertices.
   */
  targets?: readonly string[];
}

type Outcome = 'cached' | 'done' | 'error' | 'canceled';

interface Vertex {
  names: string[];
  outcome?: Outcome;
}

const VERTEX_LINE = /^#(\d+) (.*)$/;
// `[<platform>] [<stage>] n/m] INSTRUCTION`, possibly with a target first.
const STEP_NAME = /^\[([^\]]*?)\s*(\d+)\/(\d+)\] (.+)$/;
const FROM_STEP = /^(?:ONBUILD\s+)?FROM\s/i;
// `[app internal] …`, `[app linux/arm64 internal] …`: a target prefix (a platform token has a '/').
const TARGET_INTERNAL = /^\[([^\s/\]]+) (?:\S+ )?internal\] /;
const DONE = /^DONE(?: \d+(?:\.\d+)?s)?$/;

function outcomeOf(text: string): Outcome | undefined {
  if (text === 'CACHED') return 'cached';
  if (DONE.test(text)) return 'done';
  if (text === 'CANCELED') return 'canceled';
  if (text === 'ERROR' || text.startsWith('ERROR: ')) return 'error';
  return undefined;
}

/** The vertices of a plain progress output, by number. */
function readVertices(output: string): Map<number, Vertex> {
  const vertices = new Map<number, Vertex>();
  let afterBlank = true;
  for (const line of output.split(/\r?\n/)) {
    if (line.trim() === '') {
      afterBlank = true;
      continue;
    }
    const m = VERTEX_LINE.exec(line);
    const wasAfterBlank = afterBlank;
    afterBlank = false;
    if (!m) continue;
    const index = Number(m[1]);
    const text = m[2] ?? '';
    if (index === 0) continue; // `#0 building with "x" instance using remote driver`
    const vertex = vertices.get(index);
    if (!vertex) {
      vertices.set(index, {names: [text]});
    } else if (wasAfterBlank && text !== '...') {
      // The printer came back to this vertex: it prints the name again (a vertex shared by two bake
      // targets comes back under the other target's prefix).
      if (!vertex.names.includes(text)) vertex.names.push(text);
    } else {
      // The last ending wins: a log line "#6 0.2 DONE" has a timestamp, but older BuildKits printed logs
      // without one, and a step's own ending is always printed after its logs.
      vertex.outcome = outcomeOf(text) ?? vertex.outcome;
    }
  }
  return vertices;
}

function counts(steps: number, cached: number): StepCounts {
  return {steps, cached, ratio: steps === 0 ? 0 : cached / steps};
}

/**
 * Counts the build steps of one buildx run (its stderr in plain progress mode) and those served from the
 * cache. Returns undefined when the output shows no build step (quiet or tty progress, rawjson, a build
 * that failed before its first step): no report rather than a made-up 0 %.
 */
export function parseCacheReport(output: string, opts: CacheReportOpts = {}): CacheReport | undefined {
  const vertices = readVertices(output);
  const targets = new Set<string>();
  if ((opts.targets?.length ?? 0) >= 2) for (const t of opts.targets ?? []) targets.add(t);
  for (const v of vertices.values()) {
    for (const name of v.names) {
      const t = TARGET_INTERNAL.exec(name)?.[1];
      if (t !== undefined) targets.add(t);
    }
  }

  let steps = 0;
  let cached = 0;
  const perTarget = new Map<string, {steps: number; cached: number}>();
  for (const v of vertices.values()) {
    const stepTargets = new Set<string>();
    let isStep = false;
    for (const name of v.names) {
      const m = STEP_NAME.exec(name);
      if (!m || FROM_STEP.test(m[4] ?? '')) continue;
      isStep = true;
      const first = (m[1] ?? '').trim().split(/\s+/)[0] ?? '';
      if (targets.has(first)) stepTargets.add(first);
    }
    if (!isStep) continue;
    const hit = v.outcome === 'cached' ? 1 : 0;
    steps += 1;
    cached += hit;
    for (const t of stepTargets) {
      const c = perTarget.get(t) ?? {steps: 0, cached: 0};
      c.steps += 1;
      c.cached += hit;
      perTarget.set(t, c);
    }
  }
  if (steps === 0) return undefined;
  const report: CacheReport = counts(steps, cached);
  if (perTarget.size > 0) {
    report.targets = Object.fromEntries(
      [...perTarget.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([t, c]) => [t, counts(c.steps, c.cached)])
    );
  }
  return report;
}

/**
 * A builder is warm for a build when at least one build step came from its cache. Caveat: BuildKit also
 * answers from the cache a step that an earlier part of the same run produced (two bake targets with the
 * same first steps), so a fresh builder can look warm; the ratio tells how warm.
 * Undefined without a report.
 */
export function isWarm(report: CacheReport | undefined): boolean | undefined {
  return report === undefined ? undefined : report.cached > 0;
}
