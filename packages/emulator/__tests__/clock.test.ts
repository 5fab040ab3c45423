import {describe, expect, jest, test} from '@jest/globals';
import {ManualClock, sleep, systemClock} from '../src/clock.js';

describe('ManualClock', () => {
  test('fires due timers in time order, including ones scheduled while advancing', () => {
    const clock = new ManualClock({now: 1000});
    const fired: string[] = [];
    clock.setTimer(() => fired.push(`b@${clock.now()}`), 20);
    clock.setTimer(() => {
      fired.push(`a@${clock.now()}`);
      clock.setTimer(() => fired.push(`c@${clock.now()}`), 5);
    }, 10);
    clock.setTimer(() => fired.push('late'), 100);
    clock.advance(30);
    expect(fired).toEqual(['a@1010', 'c@1015', 'b@1020']);
    expect(clock.now()).toBe(1030);
    expect(clock.pendingTimers()).toBe(1);
  });

  test('cancelled timers do not fire', () => {
    const clock = new ManualClock();
    let fired = false;
    clock.setTimer(() => (fired = true), 5).cancel();
    clock.advance(10);
    expect(fired).toBe(false);
    expect(clock.pendingTimers()).toBe(0);
  });
});

describe('sleep', () => {
  test('resolves at once for 0 ms and after the clock moves otherwise', async () => {
    const clock = new ManualClock();
    await sleep(clock, 0);
    let done = false;
    const p = sleep(clock, 50).then(() => (done = true));
    clock.advance(49);
    await Promise.resolve();
    expect(done).toBe(false);
    clock.advance(1);
    await p;
    expect(done).toBe(true);
  });

  test('the system clock uses the timers of the process (setTimeout) and Date.now', async () => {
    jest.useFakeTimers({now: 5000});
    try {
      expect(systemClock.now()).toBe(5000);
      let done = false;
      const p = sleep(systemClock, 5).then(() => (done = true));
      jest.advanceTimersByTime(4);
      await Promise.resolve();
      expect(done).toBe(false);
      jest.advanceTimersByTime(1);
      await p;
      expect(done).toBe(true);
      expect(systemClock.now()).toBe(5005);
    } finally {
      jest.useRealTimers();
    }
  });
});
