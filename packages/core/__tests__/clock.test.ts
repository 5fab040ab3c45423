import {describe, expect, test} from '@jest/globals';
import {systemClock} from '../src/clock.js';
import {DeadlineError} from '../src/deadline.js';
import {FakeClock} from './fakes/fake-clock.js';
import {ManualClock} from './fakes/manual-clock.js';
import {failure} from './fakes/failure.js';

describe('Clock.deadline', () => {
  test('a parent that aborts aborts it with the same reason', () => {
    const parent = new AbortController();
    const limit = new FakeClock().deadline(undefined, {parents: [undefined, parent.signal]});
    const reason = new Error('stop');
    parent.abort(reason);
    expect(limit.signal.reason).toBe(reason);
  });

  test('a parent aborted already aborts it at once', () => {
    const parent = new AbortController();
    parent.abort(new Error('gone'));
    expect(new FakeClock().deadline(100, {parents: [parent.signal]}).signal.reason).toEqual(new Error('gone'));
  });

  test('the time limit runs on the clock: not before it passes, then with the reason given', async () => {
    const clock = new FakeClock();
    const limit = clock.deadline(100, {reason: () => new DeadlineError('out of time')});
    clock.advance(99);
    await Promise.resolve();
    expect(limit.signal.aborted).toBe(false);
    clock.advance(1);
    await Promise.resolve();
    expect(limit.signal.reason).toEqual(new DeadlineError('out of time'));
  });

  test('a FakeClock sleep elsewhere moves time past the limit', async () => {
    const clock = new FakeClock();
    const limit = clock.deadline(100);
    await clock.sleep(150);
    await Promise.resolve();
    expect(limit.signal.reason).toEqual(new DeadlineError('the time limit of 100 ms ran out'));
    // The timer never moved time itself.
    expect(clock.now()).toBe(150);
  });

  test('dispose() releases the timer: the signal never aborts', async () => {
    const clock = new ManualClock();
    const limit = clock.deadline(10);
    expect(clock.pendingTimers).toBe(1);
    limit.dispose();
    await clock.advance(20);
    expect({aborted: limit.signal.aborted, timers: clock.pendingTimers, sleeps: clock.sleeps}).toEqual({
      aborted: false,
      timers: 0,
      sleeps: []
    });
  });

  test("the system clock's limit is a real timer", async () => {
    const limit = systemClock.deadline(0);
    await new Promise(resolve => limit.signal.addEventListener('abort', resolve, {once: true}));
    expect(limit.signal.reason).toBeInstanceOf(DeadlineError);
  });
});

describe('Deadline.run', () => {
  test('a call that ignores its signal still ends at the time limit on the clock, and the timer is released', async () => {
    const clock = new FakeClock();
    let seen: AbortSignal | undefined;
    const run = failure(
      clock.deadline(50, {reason: () => new DeadlineError('no answer within 50 ms')}).run(signal => {
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
    await expect(clock.deadline(50).run(async () => 'ok')).resolves.toBe('ok');
    expect(clock.pendingTimers).toBe(0);
  });

  test("the call's failure, as it threw it", async () => {
    const run = failure(new FakeClock().deadline(50).run(() => Promise.reject(new Error('refused'))));
    expect((await run).message).toBe('refused');
  });

  test('a parent aborting ends it with the parent reason, even if the promise never settles', async () => {
    const parent = new AbortController();
    const run = failure(
      new FakeClock().deadline(undefined, {parents: [parent.signal]}).run(() => new Promise(() => undefined))
    );
    parent.abort(new Error('cancelled'));
    expect((await run).message).toBe('cancelled');
  });
});
