import {describe, expect, test} from '@jest/globals';
import {ApiError} from '../../src/errors.js';
import {LAST_ATTEMPT_RESERVE_MS, teardownBuilders} from '../../src/lifecycle/teardown.js';
import {deferred, FakeBuilderApi, hangUntilAborted, httpError} from '../fakes/fake-builder-api.js';
import {FakeClock} from '../fakes/fake-clock.js';
import {ManualClock} from '../fakes/manual-clock.js';
import {RecordingLogger} from '../fakes/recording-logger.js';

describe('teardownBuilders', () => {
  test('tears every builder down and reports it', async () => {
    const api = new FakeBuilderApi();
    const logger = new RecordingLogger();
    const report = await teardownBuilders(api, ['b1', 'b2'], {logger, clock: new FakeClock()});
    expect(report).toEqual({tornDown: ['b1', 'b2'], alreadyGone: [], failed: []});
    expect(api.tornDown).toEqual(['b1', 'b2']);
    expect(logger.messages('info')).toEqual(['Builder b1 torn down', 'Builder b2 torn down']);
  });

  test('no ids → nothing to do', async () => {
    const api = new FakeBuilderApi();
    expect(await teardownBuilders(api, [])).toEqual({tornDown: [], alreadyGone: [], failed: []});
    expect(api.teardownCalls).toEqual([]);
  });

  test('tears down concurrently: every request is in flight before any answers', async () => {
    const gates = [
      deferred<{alreadyGone: boolean}>(),
      deferred<{alreadyGone: boolean}>(),
      deferred<{alreadyGone: boolean}>()
    ];
    const api = new FakeBuilderApi()
      .onTeardown('b1', () => gates[0]!.promise)
      .onTeardown('b2', () => gates[1]!.promise)
      .onTeardown('b3', () => gates[2]!.promise);
    const done = teardownBuilders(api, ['b1', 'b2', 'b3'], {clock: new FakeClock()});
    await new Promise(resolve => setImmediate(resolve));
    expect(api.tornDown).toEqual(['b1', 'b2', 'b3']);
    gates[2]!.resolve({alreadyGone: false});
    gates[0]!.resolve({alreadyGone: true});
    gates[1]!.resolve({alreadyGone: false});
    expect(await done).toEqual({tornDown: ['b3', 'b2'], alreadyGone: ['b1'], failed: []});
  });

  test('duplicate ids are torn down once', async () => {
    const api = new FakeBuilderApi();
    expect(await teardownBuilders(api, ['b1', 'b1', 'b2', 'b1'], {clock: new FakeClock()})).toEqual({
      tornDown: ['b1', 'b2'],
      alreadyGone: [],
      failed: []
    });
    expect(api.tornDown).toEqual(['b1', 'b2']);
  });

  test('already gone (404) is reported as alreadyGone, not failed', async () => {
    const api = new FakeBuilderApi().onTeardown('b1', {alreadyGone: true});
    const logger = new RecordingLogger();
    expect(await teardownBuilders(api, ['b1'], {logger, clock: new FakeClock()})).toEqual({
      tornDown: [],
      alreadyGone: ['b1'],
      failed: []
    });
    expect(logger.messages('info')).toEqual(['Builder b1 was already gone']);
  });

  test('a failing round is retried after pauseMs, doubling', async () => {
    const clock = new FakeClock();
    const api = new FakeBuilderApi().onTeardown(
      'b1',
      httpError('tear down builder', 503),
      httpError('tear down builder', 500),
      {alreadyGone: false}
    );
    const logger = new RecordingLogger();
    expect(await teardownBuilders(api, ['b1'], {logger, clock, pauseMs: 700})).toEqual({
      tornDown: ['b1'],
      alreadyGone: [],
      failed: []
    });
    expect(api.tornDown).toEqual(['b1', 'b1', 'b1']);
    expect(clock.sleeps).toEqual([700, 1400]);
    expect(api.teardownCalls.every(c => c.retry === false)).toBe(true);
    expect(logger.messages('debug')).toEqual([
      'teardownBuilders: b1 round 1: Failed to tear down builder: HTTP 503',
      'teardownBuilders: b1 round 2: Failed to tear down builder: HTTP 500'
    ]);
  });

  test('failing until the budget ends → failed with the last error; the rounds fill the budget, the last one inside it', async () => {
    const clock = new FakeClock();
    const api = new FakeBuilderApi()
      .onTeardown('b1', ...Array.from({length: 50}, () => httpError('tear down builder', 502, 'last')))
      .onTeardown('b2', {alreadyGone: false});
    const report = await teardownBuilders(api, ['b1', 'b2'], {clock, timeoutMs: 10_000});
    expect(report).toEqual({
      tornDown: ['b2'],
      alreadyGone: [],
      failed: [{id: 'b1', error: 'Failed to tear down builder: HTTP 502: last'}]
    });
    // 500, 1000, 2000, 4000 (capped), then what is left before the last second's reserve, then a last try.
    expect(clock.sleeps).toEqual([500, 1000, 2000, 4000, 10_000 - 7500 - LAST_ATTEMPT_RESERVE_MS]);
    expect(api.teardownCalls.filter(c => c.id === 'b1')).toHaveLength(7);
    expect(clock.now()).toBeLessThan(10_000);
  });

  test('a Retry-After longer than the budget is cut to fit it, and the teardown is tried again', async () => {
    const clock = new FakeClock();
    const asked = new ApiError({call: 'tear down builder', status: 503, retryAfterMs: 60_000});
    const api = new FakeBuilderApi().onTeardown('b1', asked, {alreadyGone: false});
    const report = await teardownBuilders(api, ['b1'], {clock, timeoutMs: 20_000});
    expect(report.tornDown).toEqual(['b1']);
    expect(clock.sleeps).toEqual([20_000 - LAST_ATTEMPT_RESERVE_MS]);
  });

  test('a short Retry-After is honoured as asked', async () => {
    const clock = new FakeClock();
    const asked = new ApiError({call: 'tear down builder', status: 429, retryAfterMs: 3000});
    const api = new FakeBuilderApi().onTeardown('b1', asked, {alreadyGone: false});
    await teardownBuilders(api, ['b1'], {clock});
    expect(clock.sleeps).toEqual([3000]);
  });

  test.each([401, 403, 400, 409])('HTTP %d will not change: no further round', async status => {
    const clock = new FakeClock();
    const api = new FakeBuilderApi().onTeardown('b1', httpError('tear down builder', status), {alreadyGone: false});
    const report = await teardownBuilders(api, ['b1'], {clock});
    expect(report.failed).toEqual([{id: 'b1', error: `Failed to tear down builder: HTTP ${status}`}]);
    expect(api.teardownCalls).toHaveLength(1);
  });

  test('builders wait apart: each its own Retry-After, the longer one cut to the budget (all on the fake clock)', async () => {
    // A ManualClock: two waits on one time moved by the test (FakeClock would add them up).
    const clock = new ManualClock();
    const retriedAt: Record<string, number> = {};
    const again = (id: string) => (): {alreadyGone: boolean} => {
      retriedAt[id] = clock.now();
      return {alreadyGone: false};
    };
    const api = new FakeBuilderApi()
      .onTeardown('b1', new ApiError({call: 'tear down builder', status: 429, retryAfterMs: 3000}), again('b1'))
      .onTeardown('b2', new ApiError({call: 'tear down builder', status: 503, retryAfterMs: 60_000}), again('b2'));
    const logger = new RecordingLogger();
    const run = teardownBuilders(api, ['b1', 'b2'], {clock, logger, timeoutMs: 20_000});
    let done = false;
    void run.finally(() => (done = true));
    while (!done && clock.now() < 20_000) await clock.advance(500);
    expect((await run).tornDown.sort()).toEqual(['b1', 'b2']);
    expect(retriedAt).toEqual({b1: 3000, b2: 20_000 - LAST_ATTEMPT_RESERVE_MS});
    expect([...clock.sleeps].sort((a, b) => a - b)).toEqual([3000, 20_000 - LAST_ATTEMPT_RESERVE_MS]);
    expect(logger.messages('debug')).toContain(
      `teardownBuilders: b2: waiting ${20_000 - LAST_ATTEMPT_RESERVE_MS} ms, not 60000: the budget ends`
    );
  });

  test('a failure inside the last-attempt reserve → one immediate last try, no wait', async () => {
    const clock = new FakeClock();
    const api = new FakeBuilderApi().onTeardown(
      'b1',
      () => {
        clock.advance(9_500); // a slow answer leaves less than the reserve of the 10 s budget
        throw httpError('tear down builder', 503);
      },
      {alreadyGone: false}
    );
    const report = await teardownBuilders(api, ['b1'], {clock, timeoutMs: 10_000});
    expect(report.tornDown).toEqual(['b1']);
    expect(clock.sleeps).toEqual([]);
    expect(api.teardownCalls).toHaveLength(2);
  });

  test('still failing inside the reserve after the last try → failed, no third request', async () => {
    const clock = new FakeClock();
    const api = new FakeBuilderApi().onTeardown(
      'b1',
      () => {
        clock.advance(9_500);
        throw httpError('tear down builder', 503);
      },
      httpError('tear down builder', 502, 'last'),
      {alreadyGone: false}
    );
    const report = await teardownBuilders(api, ['b1'], {clock, timeoutMs: 10_000});
    expect(report.failed).toEqual([{id: 'b1', error: 'Failed to tear down builder: HTTP 502: last'}]);
    expect(clock.sleeps).toEqual([]);
    expect(api.teardownCalls).toHaveLength(2);
  });

  test('attempts bounds the rounds', async () => {
    const clock = new FakeClock();
    const api = new FakeBuilderApi().onTeardown(
      'b1',
      ...Array.from({length: 9}, () => httpError('tear down builder', 503))
    );
    const report = await teardownBuilders(api, ['b1'], {clock, attempts: 5, pauseMs: 10});
    expect(report.failed).toEqual([{id: 'b1', error: 'Failed to tear down builder: HTTP 503'}]);
    expect(api.teardownCalls).toHaveLength(5);
    expect(clock.sleeps).toEqual([10, 20, 40, 80]);
  });

  test('the whole teardown is bounded by timeoutMs on the clock: a hanging call is reported as failed', async () => {
    const clock = new FakeClock();
    // The service holds b1's request while the clock moves past the budget.
    const hang = (arg: {signal?: AbortSignal}): Promise<{alreadyGone: boolean}> => {
      const held = hangUntilAborted<{alreadyGone: boolean}>(arg);
      clock.advance(100);
      return held;
    };
    const api = new FakeBuilderApi().onTeardown('b2', {alreadyGone: false}).onTeardown('b1', hang);
    const report = await teardownBuilders(api, ['b2', 'b1'], {clock, timeoutMs: 100});
    expect(report.tornDown).toEqual(['b2']);
    expect(report.failed).toEqual([{id: 'b1', error: 'no answer within the teardown budget of 100 ms'}]);
    // No further round once the time is up.
    expect(api.teardownCalls.filter(c => c.id === 'b1')).toHaveLength(1);
  });

  test('every call gets the same time-limited signal', async () => {
    const api = new FakeBuilderApi();
    await teardownBuilders(api, ['b1', 'b2'], {clock: new FakeClock(), timeoutMs: 5000});
    const [a, b] = api.teardownCalls;
    expect(a?.signal).toBeInstanceOf(AbortSignal);
    expect(a?.signal).toBe(b?.signal);
    expect(a?.signal?.aborted).toBe(false);
  });

  test('never throws, whatever the API throws', async () => {
    const api = new FakeBuilderApi().onTeardown(
      'b1',
      new TypeError('x is not a function'),
      new Error('y'),
      new Error('z')
    );
    await expect(teardownBuilders(api, ['b1'], {clock: new FakeClock(), attempts: 3})).resolves.toEqual({
      tornDown: [],
      alreadyGone: [],
      failed: [{id: 'b1', error: 'z'}]
    });
  });
});
