import {describe, expect, test} from '@jest/globals';
import type {Clock} from '../../src/clock.js';
import {waitForBuilderReady, type PollSchedule, type ReadyBuilder} from '../../src/lifecycle/readiness.js';
import {ReadinessProgress} from '../../src/lifecycle/readiness-progress.js';
import {FakeBuilderApi, httpError, pendingDetails, readyDetails, type DetailsStep} from '../fakes/fake-builder-api.js';
import {FakeClock} from '../fakes/fake-clock.js';
import {ManualClock} from '../fakes/manual-clock.js';
import {FakeProbe, unreachable, type ProbeStep} from '../fakes/fake-probe.js';
import {RecordingLogger} from '../fakes/recording-logger.js';

// What the user sees while waiting: a progress line every 10 s, debug lines only when something changes.

const schedule: PollSchedule = {intervalMs: 100, probeIntervalMs: 50, maxBackoffMs: 400};
const HOST = '10.0.0.1:1234';
const STARTING = 'details lack host, ca, client_cert, client_key (status "starting")';

interface Run {
  clock: Clock;
  api: FakeBuilderApi;
  logger: RecordingLogger;
  probe?: FakeProbe;
  deadline?: number;
  progress?: ReadinessProgress;
}

function wait(id: string, r: Run): Promise<ReadyBuilder> {
  return waitForBuilderReady(id, {
    api: r.api,
    clock: r.clock,
    logger: r.logger,
    probe: (r.probe ?? new FakeProbe()).probe,
    deadline: r.deadline ?? 60_000,
    schedule,
    ...(r.progress ? {progress: r.progress} : {})
  });
}

/** Answers pending ("starting") until `readyAt` on the clock, then ready. */
function readyAt(clock: Clock, at: number): DetailsStep {
  return () => (clock.now() >= at ? readyDetails(HOST) : pendingDetails({status: 'starting'}));
}

describe('waitForBuilderReady: progress lines', () => {
  test('one info line at 10, 20 and 30 s of a 35 s wait, and none before 10 s', async () => {
    const clock = new FakeClock();
    const api = new FakeBuilderApi().onDetails('b1', readyAt(clock, 35_000));
    const logger = new RecordingLogger();
    const stamps: number[] = [];
    const info = logger.info.bind(logger);
    logger.info = m => {
      stamps.push(clock.now());
      info(m);
    };
    await wait('b1', {clock, api, logger});
    expect(logger.messages('info')).toEqual([
      'Still waiting after 10 s of 60 s: builder b1 pending: starting',
      'Still waiting after 20 s of 60 s: builder b1 pending: starting',
      'Still waiting after 30 s of 60 s: builder b1 pending: starting'
    ]);
    expect(stamps).toEqual([10_000, 20_000, 30_000]);
    expect(clock.now()).toBe(35_000);
  });

  test('a wait that ends before 10 s prints nothing', async () => {
    const clock = new FakeClock();
    const api = new FakeBuilderApi().onDetails('b1', readyAt(clock, 9_900));
    const logger = new RecordingLogger();
    await wait('b1', {clock, api, logger});
    expect(api.detailsCount('b1')).toBe(100);
    expect(logger.messages('info')).toEqual([]);
  });

  test('the line follows the stage: starting, then provisioning, then details ready but TLS not up', async () => {
    const clock = new FakeClock();
    const api = new FakeBuilderApi().onDetails('b1', () => {
      const t = clock.now();
      if (t < 12_000) return pendingDetails({status: 'starting'});
      return t < 25_000 ? readyDetails(HOST, {status: 'provisioning'}) : readyDetails(HOST);
    });
    const tls: ProbeStep = () => {
      if (clock.now() < 32_000) throw unreachable();
    };
    const probe = new FakeProbe().on('10.0.0.1', tls);
    const logger = new RecordingLogger();
    await wait('b1', {clock, api, logger, probe});
    expect(logger.messages('info')).toEqual([
      'Still waiting after 10 s of 60 s: builder b1 pending: starting',
      'Still waiting after 20 s of 60 s: builder b1 pending: provisioning',
      'Still waiting after 30 s of 60 s: builder b1 details ready, TLS not up yet (unreachable)'
    ]);
    // One debug line per change, none per poll (251 details requests, from 0 to 25 s, then 141 probes).
    expect(api.detailsCount('b1')).toBe(251);
    expect(probe.calls).toHaveLength(141);
    expect(logger.messages('debug')).toEqual([
      `waitForBuilderReady: b1: ${STARTING}`,
      'waitForBuilderReady: b1: status is "provisioning"',
      'waitForBuilderReady: b1: nothing accepts TLS connections at 10.0.0.1:1234 yet (ECONNREFUSED)',
      'waitForBuilderReady: b1: ready'
    ]);
  });

  test('builders waited for together share one line: how many are ready, each by id and stage', async () => {
    // A ManualClock: both waits sleep on one time, moved by the test, so two sleepers do not move it twice.
    const clock = new ManualClock();
    const api = new FakeBuilderApi().onDetails('b1', readyAt(clock, 15_000)).onDetails('b2', readyAt(clock, 35_000));
    const logger = new RecordingLogger();
    const progress = new ReadinessProgress({ids: ['b1', 'b2'], since: 0, deadline: 60_000});
    const both = Promise.all([wait('b1', {clock, api, logger, progress}), wait('b2', {clock, api, logger, progress})]);
    let done = false;
    void both.finally(() => (done = true));
    while (!done && clock.now() < 60_000) await clock.advance(100);
    expect((await both).map(b => b.id)).toEqual(['b1', 'b2']);
    expect(logger.messages('info')).toEqual([
      'Still waiting after 10 s of 60 s: 0 of 2 builders ready (b1 pending: starting; b2 pending: starting)',
      'Still waiting after 20 s of 60 s: 1 of 2 builders ready (b1 ready; b2 pending: starting)',
      'Still waiting after 30 s of 60 s: 1 of 2 builders ready (b1 ready; b2 pending: starting)'
    ]);
    for (const id of ['b1', 'b2']) {
      expect(logger.messages('debug').filter(m => m.includes(` ${id}: `))).toEqual([
        `waitForBuilderReady: ${id}: ${STARTING}`,
        `waitForBuilderReady: ${id}: ready`
      ]);
    }
  });
});

describe('waitForBuilderReady: debug lines only on change', () => {
  test('40 polls with the same status → one debug line (and one when ready)', async () => {
    const clock = new FakeClock();
    const api = new FakeBuilderApi().onDetails(
      'b1',
      ...Array.from({length: 40}, () => pendingDetails({status: 'starting'})),
      readyDetails(HOST)
    );
    const logger = new RecordingLogger();
    await wait('b1', {clock, api, logger});
    expect(api.detailsCount('b1')).toBe(41);
    expect(logger.messages('debug')).toEqual([
      `waitForBuilderReady: b1: ${STARTING}`,
      'waitForBuilderReady: b1: ready'
    ]);
  });

  test('30 answers of 404 inside the grace → one debug line', async () => {
    const clock = new FakeClock();
    const api = new FakeBuilderApi().onDetails(
      'b1',
      ...Array.from({length: 30}, () => httpError('get builder details', 404)),
      readyDetails(HOST)
    );
    const logger = new RecordingLogger();
    await wait('b1', {clock, api, logger});
    expect(logger.messages('debug')).toEqual([
      'waitForBuilderReady: b1: the service does not show builder b1 yet (details answered HTTP 404 within 10000 ms of the assignment)',
      'waitForBuilderReady: b1: ready'
    ]);
  });

  test('the same error kind again is not a change, even when its message differs; another kind is', async () => {
    const clock = new FakeClock();
    const api = new FakeBuilderApi().onDetails(
      'b1',
      httpError('get builder details', 503, 'busy'),
      httpError('get builder details', 503, 'still busy'),
      httpError('get builder details', 502),
      pendingDetails({status: 'starting'}),
      httpError('get builder details', 502),
      readyDetails(HOST)
    );
    const logger = new RecordingLogger();
    await wait('b1', {clock, api, logger});
    expect(logger.messages('debug')).toEqual([
      'waitForBuilderReady: b1: Failed to get builder details: HTTP 503: busy',
      'waitForBuilderReady: b1: Failed to get builder details: HTTP 502',
      `waitForBuilderReady: b1: ${STARTING}`,
      'waitForBuilderReady: b1: Failed to get builder details: HTTP 502',
      'waitForBuilderReady: b1: ready'
    ]);
  });
});
