import {errorMessage} from '../errors.js';
import type {StepBuildRecord} from '../record/step-build-record.js';
import type {BuildFacts} from './build-outputs.js';
import {singleAttempt, type BuildFn, type BuildStrategy} from './build-strategy.js';
import {inspectedTarget, type BuildTarget} from './build-target.js';
import {cancellation} from './cancellation.js';
import type {StepContext} from './step-context.js';
import type {StepRun} from './step-run.js';

/** Names of the action's inputs that appear in the shared builder's messages. */
export interface SharedBuilderInputNames {
  builder: string;
  profileName: string;
}

type SharedContext = Pick<StepContext, 'io' | 'buildx' | 'signal'>;

/** Time limit of `buildx inspect --bootstrap` of a builder the step did not create. */
const BOOTSTRAP_TIMEOUT_MS = 120000;

/**
 * Builds on the builder the `builder` input names (made by an earlier step, e.g. the configure action):
 * nothing is assigned, so nothing is billed, and nothing is torn down. One build, no retry; its record is
 * exported from the builder (which outlives the step) and uploaded once the build ended.
 */
export class SharedBuilder implements BuildStrategy {
  readonly facts: BuildFacts = {};

  private constructor(
    readonly target: BuildTarget,
    private readonly ctx: SharedContext,
    private readonly run: StepRun,
    private readonly record?: StepBuildRecord
  ) {}

  /** Checks the builder with `buildx inspect --bootstrap`; an unknown one fails naming the input and the fix. */
  static async open(
    ctx: SharedContext,
    run: StepRun,
    builder: string,
    names: SharedBuilderInputNames,
    record?: StepBuildRecord
  ): Promise<SharedBuilder> {
    const {io, signal} = ctx;
    const output = await io.logger.group(`Builder "${builder}"`, async () => {
      try {
        return await ctx.buildx.bootstrap(builder, {signal, timeoutMs: BOOTSTRAP_TIMEOUT_MS});
      } catch (e) {
        if (signal?.aborted) throw cancellation(signal, 'while inspecting the builder');
        throw new Error(
          `Input "${names.builder}": ${errorMessage(e)}. Create the builder in an earlier step (e.g. with the configure action) or leave "${names.builder}" empty to assign one from "${names.profileName}"`,
          {cause: e}
        );
      }
    });
    return new SharedBuilder(inspectedTarget(builder, output), ctx, run, record);
  }

  async build<R>(build: BuildFn<R>): Promise<R> {
    this.run.recorder.phase('build');
    try {
      return await build(this.target, singleAttempt(this.ctx.signal, this.run.recorder));
    } finally {
      await this.record?.exportFrom(this.target.name);
      await this.record?.publish(this.run.recorder);
    }
  }
}

/**
 * The migration trap (issue 15 §7a): a workflow that kept docker's `builder: ${{ steps.buildx.outputs.name }}`
 * next to `profile-name` would build on that local builder without a word. Says which builder is used, that
 * nothing is assigned, and what to remove.
 */
export function builderOverridesProfile(names: SharedBuilderInputNames, builder: string, profiles: string): string {
  return (
    `Both "${names.builder}" and "${names.profileName}" are set: the build runs on builder "${builder}" (the "${names.builder}" input) ` +
    `and NO remote builder is assigned from "${names.profileName}" (${profiles}). If "${builder}" is a local builder ` +
    `(e.g. "${names.builder}: \${{ steps.buildx.outputs.name }}" kept from docker/setup-buildx-action), this build is not remote: ` +
    `remove the "${names.builder}" input to build on a remote builder from "${names.profileName}", or remove "${names.profileName}" to keep building on "${builder}"`
  );
}
