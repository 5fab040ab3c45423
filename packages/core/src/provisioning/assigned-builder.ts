import type {ProvisionedBuilder} from '../lifecycle/builder-lifecycle.js';
import {recordNodes} from '../record/record-nodes.js';
import type {StepBuildRecord} from '../record/step-build-record.js';
import {teardownOutcome} from '../lifecycle/teardown-outcome.js';
import {CancelledError} from '../lifecycle/cancelled-error.js';
import {BuildAttemptsError, runBuildAttempts, type AttemptBuilders} from './build-attempts.js';
import {buildxDisagreement} from './buildx-agreement.js';
import type {BuildFacts} from './build-outputs.js';
import type {BuildFn, BuildStrategy} from './build-strategy.js';
import {assignedTarget, type BuildTarget} from './build-target.js';
import {cancellation} from './cancellation.js';
import type {StepContext} from './step-context.js';
import type {AcquireOpts, StepRun} from './step-run.js';

export interface AssignedBuilderOpts {
  ctx: Pick<StepContext, 'io' | 'signal' | 'buildx'>;
  run: StepRun;
  /** What was assigned, and how (profiles, timeout): a replacement is assigned the same way. */
  request: AcquireOpts & {timeoutMs: number};
  /** The input that sets the timeout, named when no time is left for a replacement. */
  timeoutName: string;
  builder: ProvisionedBuilder;
  /** Extra builds after an infrastructure failure (`retries` input). */
  retries: number;
  /** The step's build record: exported before each teardown, published after the last. */
  record?: StepBuildRecord;
}

/**
 * Builds on builders assigned for this step: the build runs under the watchdog with safe retries (on the
 * same builders while they are ready, on new ones within what is left of the timeout), and the builders are
 * torn down as soon as it ends, fails or is cancelled (nothing else in the job uses them: billing stops now,
 * not at post). The build record is exported just before each teardown (the records live in the builders'
 * BuildKit) and uploaded after the last one, when no builder is billed any more.
 */
export class AssignedBuilder implements BuildStrategy {
  readonly target: BuildTarget;
  readonly facts: BuildFacts = {};
  readonly #opts: AssignedBuilderOpts;
  /** The builders the step holds now; undefined once their record was exported. */
  #current: {name: string; builder: ProvisionedBuilder} | undefined;

  constructor(opts: AssignedBuilderOpts) {
    this.#opts = opts;
    this.target = assignedTarget(opts.builder, opts.run.inspected);
    this.#current = {name: this.target.name, builder: opts.builder};
    this.facts.timeToReadyMs = opts.builder.timeToReadyMs;
  }

  async build<R>(build: BuildFn<R>): Promise<R> {
    const {ctx, run} = this.#opts;
    const {recorder} = run;
    try {
      const done = await runBuildAttempts<BuildTarget, R>({
        retries: this.#opts.retries,
        api: run.api,
        probe: run.probe,
        logger: ctx.io.logger,
        signal: ctx.signal,
        first: {ready: this.#opts.builder.ready, target: this.target},
        build: (target, attempt) => {
          recorder.phase('build');
          return build(target, attempt);
        },
        replace: why => this.#replace(why),
        // Before a retry on the same builders: can buildx itself use what our check finds ready?
        crossCheck: ready =>
          buildxDisagreement({
            buildx: ctx.buildx,
            builder: this.#current?.name ?? this.target.name,
            ready,
            signal: ctx.signal
          }),
        onAttempt: a => recorder.attempt(a),
        onResult: r => recorder.result(r)
      });
      await this.#exportRecord();
      await run.release('after the build; billing stopped');
      await this.#opts.record?.publish(recorder);
      this.facts.attempts = done.attempts;
      this.facts.cache = done.cache;
      return done.result;
    } catch (e) {
      // A failed build's record is the most useful one; a cancelled step exports nothing (exportFrom).
      await this.#exportRecord();
      const report = await run.release('after the failure');
      await this.#opts.record?.publish(recorder);
      this.facts.attempts = e instanceof BuildAttemptsError ? e.attempts : recorder.record.attempts.length;
      // A cancelled run says what became of the builders: never "torn down" when a teardown failed.
      if (e instanceof CancelledError || ctx.signal?.aborted) {
        const cancelled = e instanceof CancelledError ? e : cancellation(ctx.signal, 'during the build');
        throw new CancelledError(`${cancelled.message}; ${teardownOutcome(report)}`);
      }
      throw e;
    }
  }

  /** The record of the builds on the current builders, while they exist (once per builder set). */
  async #exportRecord(): Promise<void> {
    const current = this.#current;
    if (current === undefined) return;
    this.#current = undefined;
    await this.#opts.record?.exportFrom(current.name, recordNodes(current.builder));
  }

  /**
   * The lost builders go first (billing stops; their record is exported first when their BuildKit still
   * answers, within the export's bound), then new ones within what is left of the timeout.
   */
  async #replace(why: string): Promise<AttemptBuilders<BuildTarget>> {
    const {run, request} = this.#opts;
    await this.#exportRecord();
    await run.release(`after: ${why}`);
    const spent = this.facts.timeToReadyMs ?? 0;
    const left = request.timeoutMs - spent;
    if (left <= 0) {
      throw new Error(
        `No time is left of "${this.#opts.timeoutName}" (${request.timeoutMs} ms, spent waiting for builders) to get a new builder: raise it to allow a replacement`
      );
    }
    const builder = await run.provision({...request, timeoutMs: left});
    this.facts.timeToReadyMs = spent + builder.timeToReadyMs;
    const target = assignedTarget(builder, run.inspected);
    this.#current = {name: target.name, builder};
    return {ready: builder.ready, target};
  }
}
