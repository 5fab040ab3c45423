import {expect, test} from '@jest/globals';
import {ManualClock} from '../src/clock.js';
import {costOf, Ledger} from '../src/ledger.js';

const base = {profile: 'p', profileId: 'bp_1', size: '16x32' as const};

test('bills live builders up to now and terminated ones up to termination', () => {
  const clock = new ManualClock({now: 0});
  const ledger = new Ledger({clock});
  ledger.open({...base, builderId: 'b1', arch: 'amd64', assignedAt: 0});
  ledger.open({...base, builderId: 'b2', arch: 'amd64,arm64', assignedAt: 0});
  clock.advance(1000);
  ledger.markReady('b1', 1000);
  clock.advance(59_000);
  ledger.terminate('b1', clock.now(), 'teardown');
  clock.advance(60_000);
  const [b1, b2] = ledger.entries();
  expect(b1).toMatchObject({readyAt: 1000, terminatedAt: 60_000, reason: 'teardown', billedMs: 60_000, cost: 0.06});
  expect(b2).toMatchObject({pricePerMinute: 0.12, billedMs: 120_000, cost: 0.24});
  expect(b2?.terminatedAt).toBeUndefined();
  expect(ledger.assigned().map(e => e.builderId)).toEqual(['b2']);
  expect(ledger.totalCost()).toBe(0.3);
});

test('a second termination keeps the first time and reason', () => {
  const clock = new ManualClock({now: 0});
  const ledger = new Ledger({clock});
  ledger.open({...base, builderId: 'b', arch: 'arm64', assignedAt: 0});
  ledger.markFailed('b', 5);
  ledger.terminate('b', 10, 'idle-timeout');
  ledger.terminate('b', 20, 'emulator-shutdown');
  expect(ledger.entries()[0]).toMatchObject({failedAt: 5, terminatedAt: 10, reason: 'idle-timeout', billedMs: 10});
});

test('costs are per millisecond, rounded to a millionth of a dollar', () => {
  expect(costOf(1, 0.06)).toBe(0.000001);
  expect(costOf(1234, 0.72)).toBe(0.014808);
  expect(costOf(0, 0.06)).toBe(0);
});
