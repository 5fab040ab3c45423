import {describe, expect, test} from '@jest/globals';
import {teardownBuilders} from '../../src/lifecycle/teardown.js';
import {deferred, FakeBuilderApi, hangUntilAborted, httpError} from '../fakes/fake-builder-api.js';
import {FakeClock} from '../fakes/fake-clock.js';
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

  test('a failing round is retried after pauseMs', async () => {
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
    expect(clock.sleeps).toEqual([700, 700]);
    expect(logger.messages('debug')).toEqual([
      'teardownBuilders: b1 round 1: Failed to tear down builder: HTTP 503',
      'teardownBuilders: b1 round 2: Failed to tear down builder: HTTP 500'
    ]);
  });

  test('every round failing → failed with the last error; no pause after the last round', async () => {
    const clock = new FakeClock();
    const api = new FakeBuilderApi()
      .onTeardown(
        'b1',
        httpError('tear down builder', 503),
        httpError('tear down builder', 502),
        httpError('tear down builder', 500, 'last')
      )
      .onTeardown('b2', {alreadyGone: false});
    const report = await teardownBuilders(api, ['b1', 'b2'], {clock});
    expect(report).toEqual({
      tornDown: ['b2'],
      alreadyGone: [],
      failed: [{id: 'b1', error: 'Failed to tear down builder: HTTP 500: last'}]
    });
    expect(api.teardownCalls.filter(c => c.id === 'b1')).toHaveLength(3);
    expect(clock.sleeps).toEqual([500, 500]);
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
    expect(clock.sleeps).toEqual([10, 10, 10, 10]);
  });

  test('the whole teardown is bounded by timeoutMs: a hanging call is reported as failed', async () => {
    const api = new FakeBuilderApi().onTeardown('b1', hangUntilAborted).onTeardown('b2', {alreadyGone: false});
    const started = Date.now();
    const report = await teardownBuilders(api, ['b1', 'b2'], {clock: new FakeClock(), timeoutMs: 100});
    expect(Date.now() - started).toBeLessThan(2000);
    expect(report.tornDown).toEqual(['b2']);
    // (Under jest's vm realms the DOMException is not an Error of the test realm, hence the optional prefix.)
    expect(report.failed).toEqual([
      {id: 'b1', error: expect.stringMatching(/^(TimeoutError: )?The operation was aborted due to timeout$/)}
    ]);
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
    await expect(teardownBuilders(api, ['b1'], {clock: new FakeClock()})).resolves.toEqual({
      tornDown: [],
      alreadyGone: [],
      failed: [{id: 'b1', error: 'z'}]
    });
  });
});
