import {describe, expect, test} from '@jest/globals';
import {
  BuildAttemptsError,
  BuildCommandError,
  runBuildAttempts,
  type AttemptBuilders,
  type BuildAttemptsOpts,
  type BuildContext
} from '../../src/provisioning/build-attempts.js';
import {abortReason} from '../../src/clock.js';
import {parseBuilderEndpoint} from '../../src/lifecycle/builder-endpoint.js';
import {CancelledError} from '../../src/lifecycle/cancelled-error.js';
import type {ReadyBuilder} from '../../src/lifecycle/readiness.js';
import type {AttemptRecord} from '../../src/report/run-record.js';
import {FakeBuilderApi, httpError, pendingDetails, readyDetails} from '../fakes/fake-builder-api.js';
import {FakeClock} from '../fakes/fake-clock.js';
import {ManualClock} from '../fakes/manual-clock.js';
import {FakeProbe} from '../fakes/fake-probe.js';
import {TEST_PEMS} from '../fakes/pems.js';
import {RecordingLogger} from '../fakes/recording-logger.js';
import {failure} from '../fakes/failure.js';

const STREAM_LOST =
  '#12 [3/3] RUN make\nERROR: failed to receive status: rpc error: code = Unavailable desc = error reading from server: EOF\n';
const RUN_EXIT =
  '#9 [2/2] RUN exit 3\n#9 ERROR: process "/bin/sh -c exit 3" did not complete successfully: exit code: 3\nERROR: failed to solve: process "/bin/sh -c exit 3" did not complete successfully: exit code: 3\n';
const DEADLINE = '#1 [internal] booting buildkit\nERROR: context deadline exceeded\n';
const COLD = '#5 [2/3] COPY . .\n#5 DONE 0.1s\n\n#6 [3/3] RUN make\n#6 DONE 1.2s\n';
const WARM = '#5 [2/3] COPY . .\n#5 CACHED\n\n#6 [3/3] RUN make\n#6 CACHED\n';

function ready(id: string, host = '10.0.0.1:1234'): ReadyBuilder {
  return {
    id,
    endpoint: parseBuilderEndpoint(host),
    platforms: [],
    pems: {ca: TEST_PEMS.ca, cert: TEST_PEMS.cert, key: TEST_PEMS.key},
    detailsRequests: 1
  };
}

/** A build step scripted per attempt: each entry is what that attempt does. */
type Step = 'ok' | 'cold' | 'warm' | 'stream-lost' | 'deadline' | 'run-exit' | 'odd' | 'hang' | 'check';

function harness(steps: Step[], over: Partial<BuildAttemptsOpts<string, string>> = {}) {
  const api = new FakeBuilderApi();
  const probe = new FakeProbe();
  const logger = new RecordingLogger();
  const attempts: AttemptRecord[] = [];
  const builds: {target: string; attempt: number}[] = [];
  const replaced: string[] = [];
  let next = 1;
  const build = async (target: string, ctx: BuildContext): Promise<string> => {
    builds.push({target, attempt: ctx.attempt});
    const step = steps[ctx.attempt - 1] ?? 'ok';
    const run = (output: string): void => ctx.reportRun({buildMs: 1000 * ctx.attempt, output});
    switch (step) {
      case 'ok':
      case 'cold':
        run(COLD);
        return `built on ${target}`;
      case 'warm':
        run(WARM);
        return `built on ${target}`;
      case 'stream-lost':
        run(STREAM_LOST);
        throw new BuildCommandError('buildx failed with: ERROR: failed to receive status', STREAM_LOST);
      case 'deadline':
        run(DEADLINE);
        throw new BuildCommandError('buildx failed with: ERROR: context deadline exceeded', DEADLINE);
      case 'run-exit':
        run(RUN_EXIT);
        throw new BuildCommandError('buildx failed with: ERROR: failed to solve: process', RUN_EXIT);
      case 'odd':
        run('ERROR: something nobody has seen before\n');
        throw new BuildCommandError('buildx failed with: ERROR: something nobody has seen before', 'ERROR: odd\n');
      case 'check':
        throw new Error('Input "platforms" asks for arm64, but no node offers it');
      case 'hang':
        return new Promise<string>((_resolve, reject) => {
          const signal = ctx.signal as AbortSignal;
          const stop = (): void => reject(new CancelledError(`${abortReason(signal).message} during the build`));
          if (signal.aborted) stop();
          else signal.addEventListener('abort', stop, {once: true});
        });
    }
  };
  const opts: BuildAttemptsOpts<string, string> = {
    retries: 1,
    api,
    probe: probe.probe,
    logger,
    first: {ready: [ready('b1')], target: 'rb-1'},
    build,
    replace: async why => {
      replaced.push(why);
      next++;
      return {ready: [ready(`b${next}`, `10.0.0.${next}:1234`)], target: `rb-${next}`} as AttemptBuilders<string>;
    },
    onAttempt: a => attempts.push(a),
    ...over
  };
  return {api, probe, logger, attempts, builds, replaced, opts, run: () => runBuildAttempts(opts)};
}

describe('runBuildAttempts', () => {
  test('a build that succeeds: one attempt, its cache report, no watching traffic after it', async () => {
    // The watchdog waits on a clock that only the test moves: a watchdog left running would still be waiting.
    const clock = new ManualClock(1_000_000);
    const h = harness(['cold'], {watch: {clock}});
    const done = await h.run();
    expect(done).toEqual({result: 'built on rb-1', attempts: 1, cache: expect.objectContaining({steps: 2, cached: 0})});
    expect(h.attempts).toEqual([
      {n: 1, builderIds: ['b1'], outcome: 'success', buildMs: 1000, cache: expect.objectContaining({steps: 2})}
    ]);
    expect(clock.pending).toBe(0);
    expect(h.api.detailsCalls).toEqual([]);
  });

  test('an infrastructure failure on a builder still ready: retried on the same builder, whose cache is warm', async () => {
    const h = harness(['stream-lost', 'warm']);
    h.api.onDetails('b1', readyDetails('10.0.0.1:1234', {status: 'ready'}));
    const done = await h.run();
    expect(done.attempts).toBe(2);
    expect(done.cache).toMatchObject({steps: 2, cached: 2, ratio: 1});
    expect(h.builds).toEqual([
      {target: 'rb-1', attempt: 1},
      {target: 'rb-1', attempt: 2}
    ]);
    expect(h.replaced).toEqual([]);
    expect(h.attempts.map(a => [a.n, a.outcome])).toEqual([
      [1, 'infrastructure'],
      [2, 'success']
    ]);
    expect(h.attempts[0]?.reason).toMatch(/connection to the builder was lost/);
    // The failed attempt's steps are reported too (here: one RUN step that never ended).
    expect(h.attempts[1]?.cache).toMatchObject({steps: 2, cached: 2});
    const retry = h.logger.messages('info').filter(l => l.startsWith('Retrying'));
    expect(retry).toHaveLength(1);
    expect(retry[0]).toMatch(
      /^Retrying the build \(attempt 2 of 2\) on the same builder b1: the connection to the builder was lost/
    );
  });

  test('an infrastructure failure on a builder that is gone: torn down and replaced, built on the new one', async () => {
    const h = harness(['stream-lost', 'ok']);
    h.api.onDetails('b1', httpError('get builder details', 404));
    const done = await h.run();
    expect(done.result).toBe('built on rb-2');
    expect(h.replaced).toEqual([expect.stringMatching(/^builder b1 is no longer ready \(/)]);
    expect(h.attempts.map(a => a.builderIds)).toEqual([['b1'], ['b2']]);
    expect(h.logger.messages('info')).toContainEqual(
      expect.stringMatching(/^Retrying the build \(attempt 2 of 2\) on a new builder: builder b1 is no longer ready/)
    );
  });

  test.each<[Step, string]>([
    ['run-exit', 'user'],
    ['odd', 'unknown'],
    ['check', 'user']
  ])('a %s failure is never retried (%s)', async (step, kind) => {
    const h = harness([step, 'ok'], {retries: 3});
    const e = await failure(h.run());
    expect(e).toBeInstanceOf(BuildAttemptsError);
    expect((e as BuildAttemptsError).attempts).toBe(1);
    expect(h.builds).toHaveLength(1);
    expect(h.attempts.map(a => a.outcome)).toEqual([kind]);
    expect(h.logger.messages('info').filter(l => l.startsWith('Retrying'))).toEqual([]);
  });

  test('retries exhausted: the error says how many attempts and why, and how to allow more', async () => {
    const h = harness(['stream-lost', 'stream-lost', 'ok'], {retries: 1});
    h.api.onDetails('b1', readyDetails('10.0.0.1:1234'));
    const e = await failure(h.run());
    expect(h.builds).toHaveLength(2);
    expect(e.message).toMatch(
      /^buildx failed with: ERROR: failed to receive status\. The build failed with an infrastructure failure \(the connection to the builder was lost.*\) after 2 attempts \(retries: 1\); raise "retries" to try more often$/
    );
  });

  test('retries: 0 turns retrying off, and the error says so', async () => {
    const h = harness(['stream-lost', 'ok'], {retries: 0});
    const e = await failure(h.run());
    expect(h.builds).toHaveLength(1);
    expect(e.message).toMatch(/retries is 0, so it was not retried$/);
  });

  test('cancellation is never retried and stays a CancelledError', async () => {
    const controller = new AbortController();
    const h = harness(['hang', 'ok'], {signal: controller.signal});
    const run = h.run();
    controller.abort(new CancelledError('Cancelled by SIGINT'));
    const e = await failure(run);
    expect(e).toBeInstanceOf(CancelledError);
    expect(h.builds).toHaveLength(1);
    expect(h.attempts.map(a => a.outcome)).toEqual(['cancelled']);
  });

  test('buildx gave up on a builder our check still finds ready, and buildx says it cannot use it: no blind retry', async () => {
    const checked: string[][] = [];
    const h = harness(['deadline', 'ok'], {
      crossCheck: async ready => {
        checked.push(ready.map(b => b.id));
        return new Error('buildx cannot use builder "rb-1" although its BuildKit answered our mutual-TLS check');
      }
    });
    h.api.onDetails('b1', readyDetails('10.0.0.1:1234', {status: 'ready'}));
    const e = await failure(h.run(), BuildAttemptsError);
    expect(e.message).toBe(
      'buildx failed with: ERROR: context deadline exceeded. buildx cannot use builder "rb-1" although its BuildKit answered our mutual-TLS check'
    );
    expect(e.attempts).toBe(1);
    expect(checked).toEqual([['b1']]);
    expect(h.builds).toHaveLength(1);
    expect(h.replaced).toEqual([]);
  });

  test('buildx gave up, but can use the builders when asked again: retried on the same builder', async () => {
    let checks = 0;
    const h = harness(['deadline', 'ok'], {crossCheck: async () => (checks++, undefined)});
    h.api.onDetails('b1', readyDetails('10.0.0.1:1234', {status: 'ready'}));
    const done = await h.run();
    expect(done.attempts).toBe(2);
    expect(checks).toBe(1);
    expect(h.builds).toEqual([
      {target: 'rb-1', attempt: 1},
      {target: 'rb-1', attempt: 2}
    ]);
  });

  test('a builder lost mid-build (status failed): the watchdog stops the build, which runs again on a new builder', async () => {
    // On a fake clock each watchdog sleep returns at once: a watchdog left running would keep asking while
    // the second attempt runs, so the count at the replacement must be the count at the end.
    const clock = new FakeClock(1_000_000);
    let atReplace = -1;
    const h = harness(['hang', 'ok'], {watch: {intervalMs: 20, lostAfterMs: 200, probeTimeoutMs: 50, clock}});
    h.api.onDetails('b1', pendingDetails({status: 'failed'}));
    h.api.onDetails('b2', readyDetails('10.0.0.2:1234', {status: 'ready'}));
    const replace = h.opts.replace;
    h.opts.replace = why => {
      atReplace = h.api.detailsCount('b1');
      return replace(why);
    };
    const done = await h.run();
    expect(done).toMatchObject({result: 'built on rb-2', attempts: 2});
    expect(h.attempts[0]).toMatchObject({n: 1, outcome: 'infrastructure', reason: expect.stringMatching(/b1.*lost/)});
    expect(h.replaced).toEqual([expect.stringMatching(/b1.*lost/)]);
    // The lost builder was asked about before its replacement, and never after it.
    expect(atReplace).toBeGreaterThan(0);
    expect(h.api.detailsCount('b1')).toBe(atReplace);
  });
});
