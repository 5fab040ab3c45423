import {describe, expect, test} from '@jest/globals';
import {DeadlineError, linkedSignal, settleOrAbort, withDeadline} from '../src/deadline.js';
import {FakeClock} from './fakes/fake-clock.js';
import {ManualClock} from './fakes/manual-clock.js';
import {failure} from './fakes/failure.js';

describe('linkedSignal', () => {
  test('a parent that aborts aborts it with the same reason', () => {
    const parent = new AbortController();
    const link = linkedSignal({parents: [undefined, parent.signal]});
    const reason = new Error('stop');
    parent.abort(reason);
    expect(link.signal.reason).toBe(reason);
  });

  test('the time limit runs on the clock: not before it passes, then with the reason given', async () => {
    const clock = new FakeClock();
    const link = linkedSignal({clock, timeoutMs: 100, onTimeout: () => new DeadlineError('out of time')});
    clock.advance(99);
    await Promise.resolve();
    expect(link.signal.aborted).toBe(false);
    clock.advance(1);
    await Promise.resolve();
    expect(link.signal.reason).toEqual(new DeadlineError('out of time'));
  });

  test('a FakeClock sleep elsewhere moves time past the limit', async () => {
    const clock = new FakeClock();
    const link = linkedSignal({clock, timeoutMs: 100});
    await clock.sleep(150);
    await Promise.resolve();
    expect(link.signal.reason).toEqual(new DeadlineError('the time limit of 100 ms ran out'));
    // The timer never moved time itself.
    expect(clock.now()).toBe(150);
  });

  test('dispose() releases the timer: the signal never aborts', async () => {
    const clock = new ManualClock();
    const link = linkedSignal({clock, timeoutMs: 10});
    expect(clock.pendingTimers).toBe(1);
    link.dispose();
    await clock.advance(20);
    expect({aborted: link.signal.aborted, timers: clock.pendingTimers, sleeps: clock.sleeps}).toEqual({
      aborted: false,
      timers: 0,
      sleeps: []
    });
  });

  test('without a clock the limit is a real timer', async () => {
    const link = linkedSignal({timeoutMs: 0});
    await new Promise(resolve => link.signal.addEventListener('abort', resolve, {once: true}));
    expect(link.signal.reason).toBeInstanceOf(DeadlineError);
  });
});

describe('settleOrAbort', () => {
  test("the promise's outcome when it settles first", async () => {
    await expect(settleOrAbort(Promise.resolve(7), new AbortController().signal)).resolves.toBe(7);
  });

  test('the reason as soon as the signal aborts, even if the promise never settles', async () => {
    const stop = new AbortController();
    const run = failure(settleOrAbort(new Promise(() => undefined), stop.signal));
    stop.abort(new Error('stopped'));
    expect((await run).message).toBe('stopped');
  });
});

describe('withDeadline', () => {
  test('a call that ignores its signal still ends at the time limit on the clock, and the timer is released', async () => {
    const clock = new FakeClock();
    let seen: AbortSignal | undefined;
    const run = failure(
      withDeadline({clock, timeoutMs: 50, onTimeout: () => new DeadlineError('no answer within 50 ms')}, signal => {
        seen = signal;
        return new Promise(() => undefined);
      })
    );
    clock.advance(50);
    const e = await run;
    expect(e).toEqual(new DeadlineError('no answer within 50 ms'));
    expect({aborted: seen?.aborted, timers: clock.pendingTimers}).toEqual({aborted: true, timers: 0});
  });

  test("the call's result, and its timer released", async () => {
    const clock = new FakeClock();
    await expect(withDeadline({clock, timeoutMs: 50}, async () => 'ok')).resolves.toBe('ok');
    expect(clock.pendingTimers).toBe(0);
  });

  test('a parent aborting ends it with the parent reason', async () => {
    const parent = new AbortController();
    const run = failure(
      withDeadline({parents: [parent.signal], timeoutMs: 60_000}, () => new Promise(() => undefined))
    );
    parent.abort(new Error('cancelled'));
    expect((await run).message).toBe('cancelled');
  });
});
