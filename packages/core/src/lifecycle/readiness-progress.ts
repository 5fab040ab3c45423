/** What a builder was doing at its last poll, as readiness saw it. */
export type BuilderStage =
  /** Nothing answered yet. */
  | {kind: 'waiting'}
  /** Details answered 404 within the grace after the assignment: the service does not show it yet. */
  | {kind: 'not-visible'}
  /** The service says it is still starting: a status other than ready, or connection details missing. */
  | {kind: 'pending'; status?: string; missing?: string[]}
  /** The details request failed: `error` is its kind ("HTTP 503", "ECONNRESET", "no answer"), not its message. */
  | {kind: 'service-error'; error: string}
  /** The details are complete but the builder does not accept our TLS yet: `problem` is the probe's failure kind. */
  | {kind: 'tls'; problem: string}
  | {kind: 'ready'};

/** How often a progress line is printed while builders are pending. */
export const PROGRESS_EVERY_MS = 10_000;

export interface ReadinessProgressOpts {
  /** Every builder waited for, in the order the line names them. */
  ids: string[];
  /** Epoch ms the wait began: the first line is due `everyMs` after it. */
  since: number;
  /** Epoch ms by which every builder must be ready. */
  deadline: number;
  /** Epoch ms the timeout began (e.g. before the assignment); elapsed and the total count from it. Default: since. */
  timeoutStartedAt?: number;
  everyMs?: number;
}

/**
 * ReadinessProgress is what the user sees of a wait for builders: one line every ~10 s naming each builder and
 * its stage, with the time elapsed of the timeout, and whether a builder's stage changed (worth a debug line)
 * rather than repeated (4 polls a second say the same thing). Pure: it is told the time, it does not read it.
 * One instance is shared by the waits of every builder of a provision, so they print one line between them.
 */
export class ReadinessProgress {
  readonly #stages = new Map<string, BuilderStage>();
  readonly #keys = new Map<string, string>();
  readonly #everyMs: number;
  readonly #timeoutStartedAt: number;
  readonly #deadline: number;
  #nextAt: number;

  constructor(opts: ReadinessProgressOpts) {
    this.#everyMs = Math.max(1, opts.everyMs ?? PROGRESS_EVERY_MS);
    this.#timeoutStartedAt = opts.timeoutStartedAt ?? opts.since;
    this.#deadline = opts.deadline;
    this.#nextAt = opts.since + this.#everyMs;
    for (const id of opts.ids) this.#stages.set(id, {kind: 'waiting'});
  }

  /** Records a builder's stage; true when it differs from the one recorded before (its first report counts). */
  update(id: string, stage: BuilderStage): boolean {
    this.#stages.set(id, stage);
    const key = stageKey(stage);
    const changed = this.#keys.get(id) !== key;
    this.#keys.set(id, key);
    return changed;
  }

  /**
   * The progress line when one is due at `now`, and then the next one is due a period later (marks missed
   * while nobody asked are skipped, not printed in a burst); undefined when none is due or all are ready.
   */
  due(now: number): string | undefined {
    if (now < this.#nextAt) return undefined;
    while (this.#nextAt <= now) this.#nextAt += this.#everyMs;
    const stages = [...this.#stages.values()];
    if (stages.every(s => s.kind === 'ready')) return undefined;
    return this.line(now);
  }

  /** e.g. `Still waiting after 20 s of 600 s: 1 of 2 builders ready (b1 ready; b2 pending: starting)`. */
  line(now: number): string {
    const elapsed = Math.floor(Math.max(0, now - this.#timeoutStartedAt) / 1000);
    const total = Math.round(Math.max(0, this.#deadline - this.#timeoutStartedAt) / 1000);
    const head = `Still waiting after ${elapsed} s of ${total} s`;
    const entries = [...this.#stages.entries()];
    if (entries.length === 1) {
      const [id, stage] = entries[0] as [string, BuilderStage];
      return `${head}: builder ${id} ${describeStage(stage)}`;
    }
    const ready = entries.filter(([, s]) => s.kind === 'ready').length;
    const each = entries.map(([id, s]) => `${id} ${describeStage(s)}`).join('; ');
    return `${head}: ${ready} of ${entries.length} builders ready (${each})`;
  }
}

/** A stage in a few words, e.g. `pending: starting`, `details ready, TLS not up yet (unreachable)`. */
export function describeStage(stage: BuilderStage): string {
  switch (stage.kind) {
    case 'waiting':
      return 'no answer yet';
    case 'not-visible':
      return 'not visible yet (HTTP 404)';
    case 'pending':
      if (stage.status === 'ready' && stage.missing?.length)
        return `pending: "ready" but no ${stage.missing.join(', ')}`;
      if (stage.status === 'pending') return 'pending';
      return `pending: ${stage.status ?? (stage.missing?.length ? 'no connection details yet' : 'no status')}`;
    case 'service-error':
      return `service error (${stage.error})`;
    case 'tls':
      return `details ready, TLS not up yet (${stage.problem})`;
    case 'ready':
      return 'ready';
  }
}

/** What makes two stages the same for change detection: kind, status, missing fields, error or probe kind. */
function stageKey(stage: BuilderStage): string {
  switch (stage.kind) {
    case 'pending':
      return `pending:${stage.status ?? ''}:${(stage.missing ?? []).join(',')}`;
    case 'service-error':
      return `service-error:${stage.error}`;
    case 'tls':
      return `tls:${stage.problem}`;
    default:
      return stage.kind;
  }
}
