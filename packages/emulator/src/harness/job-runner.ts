import {mkdtemp} from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {runAction, type ActionRunOpts, type ActionRunResult, type OutputStream} from './action-runner.js';

export type JobStep = 'main' | 'post';

/** The knobs that may differ for the post step. */
export type PostStepOpts = Pick<ActionRunOpts, 'signals' | 'cancelLikeRunner' | 'cancelTimings' | 'timeoutMs' | 'env'>;

export interface JobRunOpts extends Omit<ActionRunOpts, 'script' | 'state' | 'prependPath' | 'keepWorkDir' | 'onLine'> {
  /** `dist/<action>/main/index.js` */
  main: string;
  /** `dist/<action>/post/index.js` */
  post: string;
  /**
   * Overrides for the post step. Main's signals, cancelLikeRunner, cancelTimings and cancel apply to main
   * only: after a cancelled main, the runner starts post (`post-if: always()`) without signalling it.
   * `kill` applies to both.
   */
  postOpts?: PostStepOpts;
  /** Called with every complete output line of either step as it arrives. */
  onLine?: (line: string, stream: OutputStream, step: JobStep) => void;
}

export interface JobRunResult {
  main: ActionRunResult;
  post: ActionRunResult;
  /** The job's directory (given, or a new temp dir the caller removes). */
  workDir: string;
}

/**
 * JobRunner runs an action's main step and then, whatever main's outcome, its post step, as the runner does
 * with the default `post-if: always()`. Post gets the same inputs, `STATE_<name>` from main's GITHUB_STATE,
 * main's GITHUB_ENV exports over the job env and main's GITHUB_PATH lines in PATH. Both share one work dir.
 */
export class JobRunner {
  constructor(private readonly opts: JobRunOpts) {}

  async run(): Promise<JobRunResult> {
    const {main: mainScript, post: postScript, postOpts, onLine, ...shared} = this.opts;
    const workDir = this.opts.workDir ?? (await mkdtemp(path.join(os.tmpdir(), 'rba-harness-')));
    const main = await runAction({
      ...shared,
      script: mainScript,
      workDir,
      onLine: onLine && ((line, stream) => onLine(line, stream, 'main'))
    });
    const post = await runAction({
      script: postScript,
      workDir,
      inputs: shared.inputs,
      inheritEnv: shared.inheritEnv,
      node: shared.node,
      kill: shared.kill,
      onLine: onLine && ((line, stream) => onLine(line, stream, 'post')),
      timeoutMs: postOpts?.timeoutMs ?? shared.timeoutMs,
      signals: postOpts?.signals,
      cancelLikeRunner: postOpts?.cancelLikeRunner,
      cancelTimings: postOpts?.cancelTimings,
      // A step's own `env:` would win over GITHUB_ENV on the runner; here env plays the job's env.
      env: {...shared.env, ...main.exportedEnv, ...postOpts?.env},
      state: main.state,
      prependPath: main.path
    });
    return {main, post, workDir};
  }
}

/** Runs main, then post, as the runner does for a JavaScript action with a post hook; see JobRunOpts. */
export function runMainAndPost(opts: JobRunOpts): Promise<JobRunResult> {
  return new JobRunner(opts).run();
}
