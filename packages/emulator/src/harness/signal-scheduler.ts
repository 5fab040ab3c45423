/**
 * The signals a step receives: planned ones (at a time, or when an output line matches), the runner's
 * cancellation sequence, and the harness's own timeout.
 */

/** Sends `signal` at `afterMs` after start, or `afterMs` (default 0) after the first output line matching. */
export interface SignalSpec {
  signal: NodeJS.Signals;
  afterMs?: number;
  whenOutputMatches?: RegExp;
}

/** Delays of the runner's cancellation: SIGTERM after SIGINT, then a process-tree SIGKILL after SIGTERM. */
export interface CancelTimings {
  termAfterMs: number;
  killAfterMs: number;
}

/** github/docs workflow-cancellation.md: SIGINT, SIGTERM 7500 ms later, the process tree killed 2500 ms after that. */
export const RUNNER_CANCEL_TIMINGS: Readonly<CancelTimings> = {termAfterMs: 7500, killAfterMs: 2500};

export type SignalReason = 'planned' | 'cancel' | 'escalation' | 'timeout' | 'forced';

/** A signal the harness delivered, `atMs` after the process started. */
export interface SentSignal {
  signal: NodeJS.Signals;
  atMs: number;
  reason: SignalReason;
}

/** The process being signalled. */
export interface SignalTarget {
  /** Signals the process itself (the runner sends SIGINT and SIGTERM to the node process only). */
  signal(signal: NodeJS.Signals): void;
  /** SIGKILLs the process and everything it started. */
  killTree(): void;
  alive(): boolean;
}

export interface SignalSchedulerOpts {
  target: SignalTarget;
  signals?: SignalSpec[];
  /** After the first SIGINT, escalate as the runner does if the process is still alive. */
  cancelLikeRunner?: boolean;
  cancelTimings?: CancelTimings;
  /** SIGKILL the tree after this long. */
  timeoutMs: number;
  /** Milliseconds since the process started. */
  elapsedMs: () => number;
}

/** SignalScheduler arms the timers and output triggers of one step, and records what it sent. */
export class SignalScheduler {
  readonly sent: SentSignal[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly waiting: {spec: SignalSpec; pattern: RegExp}[] = [];
  private escalating = false;
  private stopped = false;
  private timedOutFlag = false;

  constructor(private readonly opts: SignalSchedulerOpts) {}

  get timedOut(): boolean {
    return this.timedOutFlag;
  }

  /** Arms the timeout and the time-based signals. */
  start(): void {
    this.after(this.opts.timeoutMs, () => {
      // Kill the tree even if the process is gone: an orphan holding its stdout would keep the step open.
      this.timedOutFlag = this.opts.target.alive();
      this.killTree('timeout');
    });
    for (const spec of this.opts.signals ?? []) {
      if (spec.whenOutputMatches) {
        // A global or sticky pattern keeps lastIndex between test() calls; match each line afresh.
        const pattern = new RegExp(spec.whenOutputMatches.source, spec.whenOutputMatches.flags.replace(/[gy]/g, ''));
        this.waiting.push({spec, pattern});
      } else {
        this.after(spec.afterMs ?? 0, () => this.send(spec.signal, 'planned'));
      }
    }
  }

  /** Fires the output-triggered signals whose pattern matches this line. */
  onLine(line: string): void {
    for (const entry of [...this.waiting]) {
      if (!entry.pattern.test(line)) continue;
      this.waiting.splice(this.waiting.indexOf(entry), 1);
      this.after(entry.spec.afterMs ?? 0, () => this.send(entry.spec.signal, 'planned'));
    }
  }

  /** Cancels the step the way a cancelled run does: SIGINT, escalating when cancelLikeRunner is set. */
  cancel(): void {
    this.send('SIGINT', 'cancel');
  }

  /** SIGKILLs the process tree now, as the server does to a job still running 5 minutes after cancellation. */
  forceKill(): void {
    if (!this.stopped && this.opts.target.alive()) this.killTree('forced');
  }

  /** Clears every timer; call once the process has exited. */
  stop(): void {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  private send(signal: NodeJS.Signals, reason: SignalReason): void {
    if (this.stopped || !this.opts.target.alive()) return;
    this.opts.target.signal(signal);
    this.sent.push({signal, atMs: this.opts.elapsedMs(), reason});
    if (signal === 'SIGINT' && this.opts.cancelLikeRunner && !this.escalating) this.escalate();
  }

  private escalate(): void {
    this.escalating = true;
    const timings = this.opts.cancelTimings ?? RUNNER_CANCEL_TIMINGS;
    this.after(timings.termAfterMs, () => {
      if (!this.opts.target.alive()) return;
      this.send('SIGTERM', 'escalation');
      this.after(timings.killAfterMs, () => {
        if (this.opts.target.alive()) this.killTree('escalation');
      });
    });
  }

  private killTree(reason: SignalReason): void {
    this.opts.target.killTree();
    this.sent.push({signal: 'SIGKILL', atMs: this.opts.elapsedMs(), reason});
  }

  private after(ms: number, fn: () => void): void {
    if (this.stopped) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      fn();
    }, ms);
    this.timers.add(timer);
  }
}
