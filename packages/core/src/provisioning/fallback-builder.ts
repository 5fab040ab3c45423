import {errorMessage} from '../errors.js';
import type {StepBuildRecord} from '../record/step-build-record.js';
import {createLocalFallbackBuilder, removeLocalFallbackBuilder} from '../lifecycle/local-fallback.js';
import type {BuildFacts} from './build-outputs.js';
import {singleAttempt, type BuildFn, type BuildStrategy} from './build-strategy.js';
import {inspectedTarget, type BuildTarget} from './build-target.js';
import {cancellation} from './cancellation.js';
import type {StepContext} from './step-context.js';
import type {StepRun} from './step-run.js';

type FallbackContext = Pick<StepContext, 'io' | 'exec' | 'docker' | 'buildx' | 'signal'>;

/**
 * Builds on a docker-container builder made for this step, after the remote builders failed for service
 * reasons (`fallback: local`; see createLocalFallbackBuilder for why not the runner's default builder). One
 * build, no retry; the builder is removed when the build ends (its build record exported just before,
 * uploaded just after), and post removes it when main could not.
 */
export class FallbackBuilder implements BuildStrategy {
  readonly facts: BuildFacts = {};

  private constructor(
    readonly target: BuildTarget,
    private readonly ctx: FallbackContext,
    private readonly run: StepRun,
    private readonly record?: StepBuildRecord
  ) {}

  /** Warns why (`failure`, read as `why`), then creates the local builder; a failure removes what it left. */
  static async create(
    ctx: FallbackContext,
    run: StepRun,
    failure: unknown,
    why: string,
    record?: StepBuildRecord
  ): Promise<FallbackBuilder> {
    const {io} = ctx;
    run.recorder.phase('local fallback');
    io.logger.warning(
      `No remote builder could be had (${errorMessage(failure)}): ${why}. Building on a local docker-container builder instead (fallback: local), on this runner and without the remote cache`
    );
    try {
      const local = await io.logger.group('Creating a local fallback builder', async () => {
        try {
          return await createLocalFallbackBuilder({
            exec: ctx.exec,
            docker: ctx.docker,
            logger: io.logger,
            state: io.state,
            signal: ctx.signal
          });
        } catch (e) {
          if (ctx.signal?.aborted) throw cancellation(ctx.signal, 'while creating the local fallback builder');
          throw new Error(`No remote builder could be had, and the local fallback failed too: ${errorMessage(e)}`, {
            cause: e
          });
        }
      });
      return new FallbackBuilder(inspectedTarget(local.name, local.inspectOutput, why), ctx, run, record);
    } catch (e) {
      await removeLocalFallbackBuilder({buildx: ctx.buildx, logger: io.logger, state: io.state});
      throw e;
    }
  }

  async build<R>(build: BuildFn<R>): Promise<R> {
    const {recorder} = this.run;
    recorder.phase('build');
    try {
      return await build(this.target, singleAttempt(this.ctx.signal, recorder, this.target.fallback));
    } finally {
      // One build ran, on the local builder (no retries there); no remote builder, so no time-to-ready.
      this.facts.attempts = 1;
      const {io} = this.ctx;
      await this.record?.exportFrom(this.target.name);
      await removeLocalFallbackBuilder({buildx: this.ctx.buildx, logger: io.logger, state: io.state});
      await this.record?.publish(recorder);
    }
  }
}
