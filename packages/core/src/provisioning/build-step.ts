import {BuildFiles} from '../docker/build-result.js';
import {StepBuildRecord, type UploadRecord} from '../record/step-build-record.js';
import type {DirectRecordExport} from '../record/grpc-record-export.js';
import type {ExecResult} from '../exec.js';
import type {ProvisionedBuilder} from '../lifecycle/builder-lifecycle.js';
import {fallbackReason} from '../lifecycle/local-fallback.js';
import {BAKE_DEFINITION_FILE, writeBakeDefinition} from '../report/bake-definition-file.js';
import {EarlyPhase} from '../report/run-record.js';
import type {ActionIO} from '../adapters/action-io.js';
import {BuildStepInput, BuildStepState, type BuildStepInputs} from './action-inputs.js';
import {AssignedBuilder} from './assigned-builder.js';
import type {BuildFn, BuildStrategy} from './build-strategy.js';
import {earlyPhase, readStepInputs} from './early-failure.js';
import {FallbackBuilder} from './fallback-builder.js';
import {builderOverridesProfile, SharedBuilder} from './shared-builder.js';
import {INSTALL_BUILDX_ALTERNATIVE} from './step-buildx.js';
import {checkStepLocally, openStepContext, type StepContext} from './step-context.js';
import type {StepDeps} from './step-deps.js';
import {StepRun} from './step-run.js';

export interface BuildStepOpts {
  action: 'build-push' | 'bake';
  inputs: BuildStepInputs & {'github-token': string};
  /** Secret values besides the API key and `github-token` (e.g. bake's git auth token), masked in the log. */
  secrets?: string[];
  /** build-push's `call` input (default: the `call` input as given): a method other than `build` has no build record. */
  call?: string;
  /** Uploads the build record after the teardown; default uploadBuildRecord (record-upload.ts). */
  uploadRecord?: UploadRecord;
  /** Reads the build record from our builders' BuildKit (default exportRecordsGrpc); tests inject their own. */
  exportRecordDirect?: DirectRecordExport;
}

/** A build step's run once it has a builder: build() runs the action's build on it (StepRun.build). */
export interface BuildRun {
  build<R>(build: BuildFn<R>): Promise<R>;
}

export interface BuildCommandOpts {
  /** Title of the build's log group, e.g. `Building on builder "x"`. */
  title: string;
  /** `docker buildx` arguments (without `buildx`); only paths, never secret values. */
  args: string[];
  cwd?: string;
  /** Extra environment (BUILDX_METADATA_WARNINGS=true is always set). */
  env?: Record<string, string>;
  signal?: AbortSignal;
}

const NAMES = {builder: BuildStepInput.Builder, profileName: BuildStepInput.ProfileName};

/** build-push's input of docker's `--call` (bake has none): a subrequest has no build record. */
const CALL_INPUT = 'call';

/** Inputs of the build actions whose values are secrets: scrubbed from an early failure's error. */
const SECRET_INPUTS = [BuildStepInput.ApiKey, 'github-token'];

/**
 * The main step of a build action (build-push, bake), in the order the action drives it: openBuildStep
 * (secrets masked, buildx installed, the step's context and private folder) → checkLocal (nothing billed
 * if it fails) → acquire (a builder: assigned, a local fallback, or the `builder` input's) → BuildRun.build
 * → close (the folder and the secret files in it go).
 */
export class BuildStep {
  readonly #opts: BuildStepOpts;
  #run: StepRun | undefined;
  /** Whether the folder holds bake's definition for post's summary (close() keeps it). */
  #keepDefinition = false;
  /** The buildx version the local checks measured. */
  #buildxVersion: string | undefined;

  private constructor(
    /** The step's context (docker, clock, GitHub context, …). */
    readonly ctx: StepContext,
    /** The step's private folder (iidfile, metadata file, secret files), removed by close(). */
    readonly files: BuildFiles,
    opts: BuildStepOpts
  ) {
    this.#opts = opts;
  }

  /**
   * Reads the action's inputs (`read`, which throws InputError on a bad one). A bad input is recorded as the
   * step's run (nothing assigned), so post writes its failure block, then thrown on.
   */
  static readInputs<T>(io: ActionIO, action: BuildStepOpts['action'], read: () => T): T {
    return readStepInputs(io, {action, secretInputs: SECRET_INPUTS}, read);
  }

  /** Masks the secrets, builds the step's context and makes its private folder (saved in state for post). */
  static async open(deps: StepDeps, opts: BuildStepOpts): Promise<BuildStep> {
    const {io} = deps;
    const {inputs} = opts;
    for (const secret of [inputs.credentials?.token, inputs['github-token'], ...(opts.secrets ?? [])]) {
      if (secret) io.logger.setSecret(secret);
    }
    // A buildx-version that cannot be installed fails here, before anything is assigned.
    const install = {action: opts.action, phase: EarlyPhase.BuildxInstall, secretInputs: SECRET_INPUTS};
    const ctx = await earlyPhase(io, {...install, signal: deps.signal}, () =>
      openStepContext(deps, inputs['buildx-version'])
    );
    const profiles = io.getInput(BuildStepInput.ProfileName);
    if (inputs.builder !== '' && profiles !== '')
      io.logger.warning(builderOverridesProfile(NAMES, inputs.builder, profiles));
    const files = BuildFiles.create(io.env['RUNNER_TEMP'], `${opts.action}-`);
    io.state.save(BuildStepState.TmpDir, files.dir);
    return new BuildStep(ctx, files, opts);
  }

  /**
   * The local checks, in their log group before anything is assigned: `docker buildx version`, then the
   * action's own (argv gates, the bake definition) with that version. `actionChecks` is a callback only so
   * its lines and a cancellation land in the checks' group (Logger.group scopes a function); it returns what
   * the build needs.
   */
  async checkLocal<T>(actionChecks: (buildxVersion: string) => Promise<T>): Promise<T> {
    const {ctx} = this;
    // The runner's buildx missing: installing one with buildx-version is the other way out.
    const alternative = this.#opts.inputs['buildx-version'].kind === 'runner' ? INSTALL_BUILDX_ALTERNATIVE : undefined;
    const early = {action: this.#opts.action, phase: EarlyPhase.LocalChecks, secretInputs: SECRET_INPUTS};
    // A failure here (buildx missing, bake's definition, …) is recorded for post's summary: nothing was assigned.
    const {more} = await earlyPhase(ctx.io, {...early, summary: ctx.summary, signal: ctx.signal}, () =>
      checkStepLocally(ctx, {
        buildx: {alternative},
        more: version => {
          this.#buildxVersion = version as string;
          return actionChecks(version as string);
        }
      })
    );
    return more;
  }

  /**
   * bake: keeps `buildx bake --print`'s output in the private folder for the job summary's "Bake definition"
   * (post reads it; the step state is too small for it). Nothing when the summary is off.
   */
  saveBakeDefinition(printed: string): void {
    if (!this.ctx.summary) return;
    writeBakeDefinition(this.files.dir, printed);
    this.#keepDefinition = true;
  }

  /**
   * Gets the builder the build runs on, starting the run record: the `builder` input's (checked, nothing
   * assigned), else builders assigned from `profile-name`, else (fallback: local, when the service could not
   * give one) a local builder. A failure here has torn down what was assigned and ended the record.
   */
  async acquire(): Promise<BuildRun> {
    const {ctx} = this;
    const {inputs, action} = this.#opts;
    const run = StepRun.forStep(ctx, {
      action,
      token: inputs.credentials?.token,
      apiUrl: inputs['api-url'],
      timeoutMs: inputs.timeout,
      timeoutName: BuildStepInput.Timeout,
      sizeHint: inputs['builder-size']
    });
    this.#run = run;
    try {
      const strategy = await this.#strategy(run);
      return {build: build => run.build(strategy, build, ctx.io)};
    } catch (e) {
      run.finish(e);
      run.close();
      throw e;
    }
  }

  /** The strategy acquire() picks (see there); a failure has torn down what was assigned. */
  async #strategy(run: StepRun): Promise<BuildStrategy> {
    const {ctx} = this;
    const {inputs} = this.#opts;
    const record = this.#buildRecord();
    if (inputs.builder !== '') return SharedBuilder.open(ctx, run, inputs.builder, NAMES, record);
    const request = {profiles: inputs['profile-name'], setupBuildx: true, use: false, timeoutMs: inputs.timeout};
    let builder: ProvisionedBuilder;
    try {
      builder = await run.provision(request);
    } catch (explained) {
      const why = inputs.fallback === 'local' && !ctx.signal?.aborted ? fallbackReason(explained) : undefined;
      if (why === undefined) throw explained;
      return FallbackBuilder.create(ctx, run, explained, why, record);
    }
    return new AssignedBuilder({
      ctx,
      run,
      request,
      timeoutName: BuildStepInput.Timeout,
      builder,
      retries: inputs.retries,
      record
    });
  }

  /** The step's build record (export before each teardown, upload after): see StepBuildRecord. */
  #buildRecord(): StepBuildRecord {
    const {ctx, files} = this;
    return new StepBuildRecord({
      buildx: (args, opts) => ctx.buildx.command(args, opts),
      logger: ctx.io.logger,
      clock: ctx.clock,
      env: ctx.io.env,
      dir: files.dir,
      configDir: () => ctx.buildx.configDir(),
      repository: ctx.github.repository,
      buildxVersion: this.#buildxVersion ?? '0.0.0',
      summary: ctx.summary,
      call: this.#opts.call ?? ctx.io.getInput(CALL_INPUT),
      readMetadata: () => files.read().metadata,
      upload: this.#opts.uploadRecord,
      direct: this.#opts.exportRecordDirect,
      signal: ctx.signal
    });
  }

  /** Runs `docker buildx …` in its own log group; returns docker's result and how long it took. */
  async runBuildx(opts: BuildCommandOpts): Promise<{res: ExecResult; buildMs: number}> {
    const {io, clock, exec, docker} = this.ctx;
    const started = clock.now();
    const res = await io.logger.group(opts.title, () => {
      io.logger.info(`[command]${docker} buildx ${opts.args.join(' ')}`);
      return exec.run(docker, ['buildx', ...opts.args], {
        env: {BUILDX_METADATA_WARNINGS: 'true', ...opts.env},
        logged: true,
        cwd: opts.cwd,
        signal: opts.signal
      });
    });
    return {res, buildMs: clock.now() - started};
  }

  /**
   * Removes the private folder (and the secret files in it), but bake's definition when saved for the summary
   * (post removes the folder after reading it), and releases the API client if still held.
   */
  close(): void {
    if (this.#keepDefinition) this.files.removeExcept([BAKE_DEFINITION_FILE]);
    else this.files.remove();
    this.#run?.close();
  }
}
