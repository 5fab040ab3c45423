import {describe, expect, test} from '@jest/globals';
import {
  describeStage,
  PROGRESS_EVERY_MS,
  ReadinessProgress,
  type BuilderStage
} from '../../src/lifecycle/readiness-progress.js';

const T0 = 1_000_000;

function progress(ids: string[], extra: {timeoutStartedAt?: number; everyMs?: number} = {}): ReadinessProgress {
  return new ReadinessProgress({ids, since: T0, deadline: T0 + 600_000, ...extra});
}

describe('ReadinessProgress: when a line is due', () => {
  test('every 10 s from the start of the wait, not before', () => {
    expect(PROGRESS_EVERY_MS).toBe(10_000);
    const p = progress(['b1']);
    const printed: number[] = [];
    for (let t = 0; t <= 35_000; t += 250) if (p.due(T0 + t)) printed.push(t);
    expect(printed).toEqual([10_000, 20_000, 30_000]);
  });

  test('a poll late for a mark prints at once; the next mark stays on the 10 s grid', () => {
    const p = progress(['b1']);
    expect(p.due(T0 + 9_999)).toBeUndefined();
    expect(p.due(T0 + 10_400)).toBe('Still waiting after 10 s of 600 s: builder b1 no answer yet');
    expect(p.due(T0 + 19_999)).toBeUndefined();
    expect(p.due(T0 + 20_000)).toMatch(/^Still waiting after 20 s of 600 s/);
  });

  test('marks missed while nobody asked (a long request) are skipped, not printed in a burst', () => {
    const p = progress(['b1']);
    expect(p.due(T0 + 45_000)).toMatch(/after 45 s/);
    expect(p.due(T0 + 45_100)).toBeUndefined();
    expect(p.due(T0 + 49_999)).toBeUndefined();
    expect(p.due(T0 + 50_000)).toMatch(/after 50 s/);
  });

  test('one line per mark however many builders ask', () => {
    const p = progress(['b1', 'b2', 'b3']);
    const lines = [p.due(T0 + 10_000), p.due(T0 + 10_000), p.due(T0 + 10_050)];
    expect(lines.filter(Boolean)).toHaveLength(1);
  });

  test('nothing once every builder is ready', () => {
    const p = progress(['b1', 'b2']);
    p.update('b1', {kind: 'ready'});
    p.update('b2', {kind: 'ready'});
    expect(p.due(T0 + 10_000)).toBeUndefined();
  });

  test('elapsed and the total count from when the timeout began, the marks from when the wait began', () => {
    // The assignment took 3 s of a 600 s timeout: the first line comes 10 s into the wait, at 13 s of 603 s.
    const p = new ReadinessProgress({ids: ['b1'], since: T0, deadline: T0 + 600_000, timeoutStartedAt: T0 - 3000});
    expect(p.due(T0 + 9_999)).toBeUndefined();
    expect(p.due(T0 + 10_000)).toBe('Still waiting after 13 s of 603 s: builder b1 no answer yet');
  });

  test('a custom period', () => {
    const p = progress(['b1'], {everyMs: 2000});
    expect(p.due(T0 + 1999)).toBeUndefined();
    expect(p.due(T0 + 2000)).toMatch(/after 2 s/);
  });
});

describe('ReadinessProgress: what the line says', () => {
  test('several builders: how many are ready, and each by id with its stage, in the order given', () => {
    const p = progress(['b-123', 'b-456']);
    p.update('b-456', {kind: 'pending', status: 'starting'});
    p.update('b-123', {kind: 'ready'});
    expect(p.line(T0 + 20_000)).toBe(
      'Still waiting after 20 s of 600 s: 1 of 2 builders ready (b-123 ready; b-456 pending: starting)'
    );
  });

  test('the latest stage of each builder', () => {
    const p = progress(['b1', 'b2']);
    p.update('b1', {kind: 'pending', status: 'starting'});
    p.update('b1', {kind: 'tls', problem: 'unreachable'});
    expect(p.line(T0 + 10_000)).toBe(
      'Still waiting after 10 s of 600 s: 0 of 2 builders ready (b1 details ready, TLS not up yet (unreachable); b2 no answer yet)'
    );
  });

  // prettier-ignore
  test.each<[number, BuilderStage, string]>([
    [1, {kind: 'waiting'}, 'no answer yet'],
    [2, {kind: 'not-visible'}, 'not visible yet (HTTP 404)'],
    [3, {kind: 'pending', status: 'starting'}, 'pending: starting'],
    [4, {kind: 'pending', missing: ['host', 'ca']}, 'pending: no connection details yet'],
    [5, {kind: 'pending', status: 'ready', missing: ['ca']}, 'pending: "ready" but no ca'],
    [6, {kind: 'pending'}, 'pending: no status'],
    [7, {kind: 'pending', status: 'pending', missing: ['host']}, 'pending'],
    [8, {kind: 'service-error', error: 'HTTP 503'}, 'service error (HTTP 503)'],
    [9, {kind: 'tls', problem: 'rejected'}, 'details ready, TLS not up yet (rejected)'],
    [10, {kind: 'ready'}, 'ready']
  ])('[%d] %o → %o', (_n, stage, text) => {
    expect(describeStage(stage)).toBe(text);
  });
});

describe('ReadinessProgress: changes', () => {
  test('the first report is a change; the same stage again is not', () => {
    const p = progress(['b1']);
    expect(p.update('b1', {kind: 'pending', status: 'starting'})).toBe(true);
    expect(p.update('b1', {kind: 'pending', status: 'starting'})).toBe(false);
  });

  // prettier-ignore
  test.each<[number, BuilderStage, BuilderStage, boolean]>([
    [1, {kind: 'pending', status: 'starting'}, {kind: 'pending', status: 'provisioning'}, true],
    [2, {kind: 'pending', missing: ['host', 'ca']}, {kind: 'pending', missing: ['ca']}, true],
    [3, {kind: 'service-error', error: 'HTTP 503'}, {kind: 'service-error', error: 'HTTP 502'}, true],
    [4, {kind: 'service-error', error: 'HTTP 503'}, {kind: 'service-error', error: 'HTTP 503'}, false],
    [5, {kind: 'tls', problem: 'unreachable'}, {kind: 'tls', problem: 'timeout'}, true],
    [6, {kind: 'not-visible'}, {kind: 'not-visible'}, false],
    [7, {kind: 'pending', status: 'starting'}, {kind: 'tls', problem: 'unreachable'}, true]
  ])('[%d] %o then %o → changed: %s', (_n, first, second, changed) => {
    const p = progress(['b1']);
    p.update('b1', first);
    expect(p.update('b1', second)).toBe(changed);
  });

  test('builders are tracked apart', () => {
    const p = progress(['b1', 'b2']);
    expect(p.update('b1', {kind: 'pending', status: 'starting'})).toBe(true);
    expect(p.update('b2', {kind: 'pending', status: 'starting'})).toBe(true);
    expect(p.update('b1', {kind: 'pending', status: 'starting'})).toBe(false);
  });
});
