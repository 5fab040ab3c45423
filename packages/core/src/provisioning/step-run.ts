import type {BuilderSize} from '../billing/price-table.js';
import type {ProvisionedBuilder} from '../lifecycle/builder-lifecycle.js';
import type {RunRecord} from '../report/run-record.js';
import {RunRecorder} from '../report/run-recorder.js';
import {failedOutcome} from './outcome.js';
import {Provisioner} from './provisioner.js';
import type {StepContext} from './step-context.js';

export interface StepRunOpts {
  action: RunRecord['action'];
  /** The API key; undefined on a builder the step did not assign (the `builder` input): no provisioner then. */
  token?: string;
  apiUrl: string;
  timeoutMs: number;
  /** The input that sets `timeoutMs`, named in the timeout hint. */
  timeoutName: string;
  /** The builders' size from an input, when the service says none. */
  sizeHint?: BuilderSize;
}

/** What to assign: profiles in order, and whether to set buildx up (and make it docker's default). */
export interface AcquireOpts {
  profiles: string[];
  setupBuildx: boolean;
  use: boolean;
  /** Assignment → ready limit; default the run's `timeoutMs`. */
  timeoutMs?: number;
}

/**
 * One run of a step with the service: it owns the run record (the job summary's facts, saved for post) and
 * the provisioner (API client, lifecycle). finish() is the one place a run's outcome is decided.
 */
export class StepRun {
  readonly recorder: RunRecorder;
  readonly #ctx: StepContext;
  readonly #opts: StepRunOpts;
  #provisioner: Provisioner | undefined;

  constructor(ctx: StepContext, opts: StepRunOpts) {
    this.#ctx = ctx;
    this.#opts = opts;
    this.recorder = new RunRecorder({
      action: opts.action,
      state: ctx.io.state,
      summary: ctx.summary,
      secrets: opts.token !== undefined ? [opts.token] : [],
      sizeHint: opts.sizeHint
    });
  }

  /** The provisioner, made on first use: no API client exists before the local checks pass. */
  get provisioner(): Provisioner {
    if (this.#provisioner) return this.#provisioner;
    const ctx = this.#ctx;
    const {io} = ctx;
    if (this.#opts.token === undefined) throw new Error('StepRun: an API key is required to assign a builder');
    this.#provisioner = new Provisioner({
      apiUrl: this.#opts.apiUrl,
      token: this.#opts.token,
      state: io.state,
      logger: io.logger,
      buildx: ctx.buildx,
      timeoutMs: this.#opts.timeoutMs,
      timeoutName: this.#opts.timeoutName,
      env: io.env,
      certRoot: io.env['RUNNER_TEMP'],
      recorder: this.recorder,
      makeApi: ctx.makeApi,
      builderName: ctx.builderName,
      clock: ctx.clock,
      probe: ctx.probe,
      schedule: ctx.schedule,
      signal: ctx.signal
    });
    return this.#provisioner;
  }

  /** Assigns and readies builders (see Provisioner.provision); a failure ends the run and is recorded. */
  async acquire(opts: AcquireOpts): Promise<ProvisionedBuilder> {
    try {
      return await this.provisioner.provision(opts);
    } catch (e) {
      this.finish(e);
      throw e;
    }
  }

  /** Ends the run record: a success without `error`, else the outcome failedOutcome reads from it. */
  finish(error?: unknown): void {
    if (error === undefined) this.recorder.finish('success');
    else this.recorder.finish(failedOutcome(error, this.#ctx.signal), error);
  }

  /** Releases the API client's sockets (idempotent). */
  close(): void {
    this.#provisioner?.close();
    this.#provisioner = undefined;
  }
}
