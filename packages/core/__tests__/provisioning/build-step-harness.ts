// A build step driven the way build-push and bake drive it (open → local checks → acquire → build → close),
// with a fake service API, a fake docker, a fake clock and probe.
import {GrpcCode, GrpcStatusError} from '../../src/net/grpc-call.js';
import type {DirectRecordExport} from '../../src/record/grpc-record-export.js';
import {BuildStep} from '../../src/provisioning/build-step.js';
import type {BuildFn} from '../../src/provisioning/build-strategy.js';
import {readBuildStepInputs} from '../../src/provisioning/action-inputs.js';
import type {StepDeps} from '../../src/provisioning/step-deps.js';
import type {Logger} from '../../src/logger.js';
import type {UploadRecord} from '../../src/record/step-build-record.js';
import {FakeActionIO} from '../fakes/fake-action-io.js';
import {FakeBuilderApi} from '../fakes/fake-builder-api.js';
import {FakeClock} from '../fakes/fake-clock.js';
import {FakeExec, subcommand} from '../fakes/fake-exec.js';
import {FakeProbe} from '../fakes/fake-probe.js';

export const VERSION = 'github.com/docker/buildx v0.13.1 abc\n';
export const INSPECT = 'Name: rb\nDriver: remote\n\nName: b1\nBuildKit version: v0.13.2\nPlatforms: linux/amd64*\n';

/** The inputs of a step that assigns from profile "amd". */
export const REMOTE = {'profile-name': 'amd', 'api-url': 'https://api.example.com', 'api-key': 'k', timeout: '10000'};

export interface HarnessOpts {
  /** RUNNER_TEMP. */
  root: string;
  inputs: Record<string, string>;
  logger?: Logger;
  /** The build record's uploader (default: none given, so the production one). */
  uploadRecord?: UploadRecord;
  /**
   * How the record is read from the builders' BuildKit directly (default: as a BuildKit without the history
   * API answers, UNIMPLEMENTED, so buildx exports it; the fake builders' addresses are never dialled).
   */
  exportRecordDirect?: DirectRecordExport;
}

const NO_HISTORY_API: DirectRecordExport = async () => {
  throw new GrpcStatusError('/moby.buildkit.v1.Control/ListenBuildHistory', GrpcCode.Unimplemented, 'unknown method');
};

export function buildStepHarness(opts: HarnessOpts) {
  const events: string[] = [];
  const api = new FakeBuilderApi(events);
  const io = new FakeActionIO(opts.inputs, {RUNNER_TEMP: opts.root});
  if (opts.logger) Object.defineProperty(io, 'logger', {value: opts.logger});
  const exec = new FakeExec(c => {
    events.push(`docker:${subcommand(c.args)}`);
    if (subcommand(c.args) === 'version') return {stdout: VERSION};
    return subcommand(c.args) === 'inspect' ? {stdout: INSPECT} : {};
  });
  let closed = 0;
  const deps: StepDeps = {
    io,
    exec,
    makeApi: () => Object.assign(api, {close: () => void closed++}),
    clock: new FakeClock(),
    probe: new FakeProbe().probe,
    schedule: {intervalMs: 100, probeIntervalMs: 50, maxBackoffMs: 400},
    builderName: 'rb'
  };
  /** Runs the step: `check` as the action's local checks, `build` on the builder it acquires. */
  async function run<R>(
    build: BuildFn<R>,
    check: (version: string) => Promise<unknown> = async () => undefined,
    action: 'build-push' | 'bake' = 'build-push'
  ): Promise<R> {
    const step = await BuildStep.open(deps, {
      action,
      inputs: {...readBuildStepInputs(io), 'github-token': ''},
      uploadRecord: opts.uploadRecord,
      exportRecordDirect: opts.exportRecordDirect ?? NO_HISTORY_API
    });
    try {
      await step.checkLocal(check);
      const acquired = await step.acquire();
      return await acquired.build(build);
    } finally {
      step.close();
    }
  }
  return {events, api, io, exec, deps, run, closed: () => closed};
}
