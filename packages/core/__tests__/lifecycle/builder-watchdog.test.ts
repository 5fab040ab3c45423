import {afterEach, describe, expect, test} from '@jest/globals';
import type {BuilderDetails} from '../../src/api/types.js';
import {ApiError} from '../../src/errors.js';
import {parseBuilderEndpoint} from '../../src/lifecycle/builder-endpoint.js';
import {BuilderLostError, BuilderWatchdog, type BuilderWatchdogOpts} from '../../src/lifecycle/builder-watchdog.js';
import type {ReadyBuilder} from '../../src/lifecycle/readiness.js';
import {TlsProbeError, type TlsProbeOpts} from '../../src/lifecycle/tls-probe.js';
import {
  deferred,
  FakeBuilderApi,
  hangUntilAborted,
  httpError,
  readyDetails,
  type DetailsStep
} from '../fakes/fake-builder-api.js';
import {FakeProbe, rejected, unreachable, type ProbeStep} from '../fakes/fake-probe.js';
import {ManualClock} from '../fakes/manual-clock.js';
import {systemClock, type Clock} from '../../src/clock.js';
import {TEST_PEMS} from '../fakes/pems.js';
import {RecordingLogger} from '../fakes/recording-logger.js';

const pems = {ca: TEST_PEMS.ca, cert: TEST_PEMS.cert, key: TEST_PEMS.key};

function builder(id: string, hostname: string, port = 1234): ReadyBuilder {
  return {id, endpoint: parseBuilderEndpoint(`${hostname}:${port}`), platforms: [], pems, detailsRequests: 1};
}

const details = (status: string, host = '10.0.0.1:1234'): BuilderDetails => readyDetails(host, {status});

interface Rig {
  api: FakeBuilderApi;
  probe: FakeProbe;
  clock: ManualClock;
  logger: RecordingLogger;
  dog: BuilderWatchdog;
  /** Clock time at which `dog.signal` aborted. */
  lostAt(): number | undefined;
  /** Calls of each kind so far. */
  traffic(): {details: number; probes: number};
}

const rigs: Rig[] = [];
afterEach(async () => {
  await Promise.all(rigs.splice(0).map(r => r.dog.stop()));
});

/** One builder b1 at 10.0.0.1:1234 by default, answering "ready" and accepting every probe. */
function rig(
  o: {
    builders?: ReadyBuilder[];
    details?: Record<string, DetailsStep[]>;
    probes?: Record<string, ProbeStep[]>;
    opts?: Partial<BuilderWatchdogOpts>;
    clock?: ManualClock;
  } = {}
): Rig {
  const api = new FakeBuilderApi();
  const builders = o.builders ?? [builder('b1', '10.0.0.1')];
  for (const b of builders) api.onDetails(b.id, ...(o.details?.[b.id] ?? [details('ready')]));
  const probe = new FakeProbe();
  for (const [host, steps] of Object.entries(o.probes ?? {})) probe.on(host, ...steps);
  const clock = o.clock ?? new ManualClock();
  const logger = new RecordingLogger();
  const dog = new BuilderWatchdog({api, probe: probe.probe, clock, logger, builders, ...o.opts});
  let lostAt: number | undefined;
  dog.signal.addEventListener('abort', () => (lostAt = clock.now()));
  const r: Rig = {
    api,
    probe,
    clock,
    logger,
    dog,
    lostAt: () => lostAt,
    traffic: () => ({details: api.detailsCalls.length, probes: probe.calls.length})
  };
  rigs.push(r);
  return r;
}

function lostError(r: Rig): BuilderLostError {
  expect(r.dog.signal.aborted).toBe(true);
  const e = r.dog.signal.reason as unknown;
  expect(e).toBeInstanceOf(BuilderLostError);
  expect(r.dog.lostError).toBe(e);
  return e as BuilderLostError;
}

/** A TLS probe that answers only when its time limit is up, as the real one does with a silent host. */
function hangsUntilTimeout(clock: ManualClock): ProbeStep {
  return async (opts: TlsProbeOpts) => {
    await clock.sleep(opts.timeoutMs, opts.signal);
    throw new TlsProbeError(
      'timeout',
      `the builder at ${opts.hostname}:${opts.port} never completed a TLS handshake within ${opts.timeoutMs} ms (no connection was established)`
    );
  };
}

describe('BuilderWatchdog: start', () => {
  test('logs one info line, then checks each builder once per interval, from one interval after start', async () => {
    const r = rig({builders: [builder('b1', '10.0.0.1'), builder('b2', '10.0.0.2', 2000)]});
    r.dog.start();
    r.dog.start();
    expect(r.logger.messages('info')).toEqual([
      'Watching 2 builders during the build (every 5 s; lost after 20 s unreachable)'
    ]);
    await r.clock.advanceTo(4999);
    expect(r.traffic()).toEqual({details: 0, probes: 0});
    await r.clock.advanceTo(5000);
    expect(r.api.detailsCalls.map(c => [c.id, c.retry, c.signal instanceof AbortSignal])).toEqual([
      ['b1', false, true],
      ['b2', false, true]
    ]);
    expect(r.probe.calls.map(c => [c.hostname, c.port, c.pems, c.timeoutMs])).toEqual([
      ['10.0.0.1', 1234, pems, 5000],
      ['10.0.0.2', 2000, pems, 5000]
    ]);
    await r.clock.advanceTo(30_000);
    expect(r.traffic()).toEqual({details: 12, probes: 12});
    expect(r.dog.signal.aborted).toBe(false);
    expect(r.logger.messages('debug')).toContain('BuilderWatchdog: b2: TLS check of 10.0.0.2:2000 succeeded');
    expect(r.logger.messages('debug')).toContain('BuilderWatchdog: b1: details say status "ready"');
  });

  test('one builder, other settings: the info line says so', () => {
    const r = rig({opts: {intervalMs: 2500, lostAfterMs: 12_000}});
    r.dog.start();
    expect(r.logger.messages('info')).toEqual([
      'Watching 1 builder during the build (every 2.5 s; lost after 12 s unreachable)'
    ]);
  });

  test('no builders: nothing to watch, nothing logged', async () => {
    const r = rig({builders: []});
    r.dog.start();
    await r.clock.advance(60_000);
    expect(r.logger.lines).toEqual([]);
    expect(r.clock.pending).toBe(0);
    await r.dog.stop();
  });

  test.each([
    ['intervalMs', 0],
    ['lostAfterMs', -1],
    ['probeTimeoutMs', Number.NaN],
    ['detailsTimeoutMs', Number.POSITIVE_INFINITY]
  ] as const)('%s = %p is refused with a message naming it', (name, value) => {
    expect(() => rig({opts: {[name]: value}})).toThrow(
      `BuilderWatchdog: ${name} must be a positive number of milliseconds, got ${value}`
    );
  });
});

describe('BuilderWatchdog: details', () => {
  test.each(['failed', 'error', 'terminated', 'deleted', 'FAILED'])(
    'status "%s" → lost at the next check',
    async status => {
      const r = rig({details: {b1: [details('ready'), details(status)]}});
      r.dog.start();
      await r.clock.advanceTo(9999);
      expect(r.dog.signal.aborted).toBe(false);
      await r.clock.advanceTo(10_000);
      expect(r.lostAt()).toBe(10_000);
      const e = lostError(r);
      expect(e.builderId).toBe('b1');
      expect(e.why).toBe(`its status is "${status}"`);
      expect(e.message).toBe(`Builder b1 was lost during the build: its status is "${status}"`);
      expect(e.name).toBe('BuilderLostError');
    }
  );

  test.each([404, 410])('details answer HTTP %i → lost at once (the builder was ready before)', async status => {
    const r = rig({details: {b1: [httpError('get builder details', status)]}});
    r.dog.start();
    await r.clock.advanceTo(5000);
    expect(r.lostAt()).toBe(5000);
    expect(lostError(r).message).toBe(
      `Builder b1 was lost during the build: the service no longer knows it (details answered HTTP ${status})`
    );
  });

  test.each([
    ['HTTP 503', httpError('get builder details', 503)],
    ['HTTP 500', httpError('get builder details', 500)],
    ['HTTP 429', httpError('get builder details', 429)],
    ['HTTP 401', httpError('get builder details', 401)],
    ['a network error', new ApiError({call: 'get builder details', code: 'ECONNREFUSED'})],
    ['a non-API error', new Error('socket hang up')]
  ])('%s for 60 s with the probe fine → not lost (logged at debug); the checks go on', async (_name, error) => {
    const r = rig({details: {b1: [...Array<DetailsStep>(12).fill(error), details('failed')]}});
    r.dog.start();
    await r.clock.advanceTo(60_000);
    expect(r.dog.signal.aborted).toBe(false);
    expect(r.traffic()).toEqual({details: 12, probes: 12});
    const failures = r.logger.messages('debug').filter(m => m.includes('details check failed'));
    expect(failures).toHaveLength(12);
    expect(failures[0]).toBe(
      `BuilderWatchdog: b1: details check failed (not a sign of a lost builder): ${error.message}`
    );
    expect(r.logger.messages('warning')).toEqual([]);
    // The loop survived the errors: the 13th answer is seen at once.
    await r.clock.advanceTo(65_000);
    expect(r.lostAt()).toBe(65_000);
    expect(lostError(r).why).toBe('its status is "failed"');
  });

  test('statuses other than lost ones, or none, are not a loss', async () => {
    const r = rig({details: {b1: [details('pending'), readyDetails('10.0.0.1:1234'), details('weird')]}});
    r.dog.start();
    await r.clock.advanceTo(30_000);
    expect(r.dog.signal.aborted).toBe(false);
    expect(r.logger.messages('debug')).toEqual(
      expect.arrayContaining([
        'BuilderWatchdog: b1: details say status "pending"',
        'BuilderWatchdog: b1: details say status "(none)"',
        'BuilderWatchdog: b1: details say status "weird"'
      ])
    );
  });

  test('a details request with no answer is abandoned at its time limit, and counts as an API error', async () => {
    const r = rig({details: {b1: [hangUntilAborted]}});
    r.dog.start();
    await r.clock.advanceTo(5000);
    const first = r.api.detailsCalls[0]?.signal;
    expect(first?.aborted).toBe(false);
    await r.clock.advanceTo(14_999);
    expect(first?.aborted).toBe(false);
    await r.clock.advanceTo(15_000);
    expect(first?.aborted).toBe(true);
    expect(r.logger.messages('debug')).toContain(
      'BuilderWatchdog: b1: details check failed (not a sign of a lost builder): the details request got no answer within 10000 ms'
    );
    expect(r.dog.signal.aborted).toBe(false);
  });

  test('a client key that changed is registered as a secret; the known one is not registered again', async () => {
    const newKey = TEST_PEMS.key.replace('SecretKeyLine2xx', 'RotatedKeyLine2x');
    const r = rig({
      details: {b1: [details('ready'), readyDetails('10.0.0.1:1234', {status: 'ready'}, {client_key: newKey})]}
    });
    r.dog.start();
    await r.clock.advanceTo(5000);
    expect(r.logger.secrets).toEqual([]);
    await r.clock.advanceTo(10_000);
    expect(r.logger.secrets).toContain(newKey.trim());
    expect(r.logger.secrets).toContain('AwEHBG0wawIBAQQgRotatedKeyLine2x');
  });
});

describe('BuilderWatchdog: reachability', () => {
  test.each([
    ['unreachable', unreachable('10.0.0.1:1234')],
    ['rejected (the material was fine before)', rejected('10.0.0.1:1234')],
    ['a timeout', new TlsProbeError('timeout', 'no TLS handshake with 10.0.0.1:1234 within 5000 ms')]
  ])('probe failing (%s) → lost after 20 s, not at 15 s', async (_name, error) => {
    const r = rig({probes: {'10.0.0.1': [error]}});
    r.dog.start();
    await r.clock.advanceTo(15_000);
    expect(r.probe.calls).toHaveLength(3);
    expect(r.dog.signal.aborted).toBe(false);
    expect(r.logger.messages('debug')).toContain(
      `BuilderWatchdog: b1: TLS check of 10.0.0.1:1234 failed (unreachable for 15 s of 20 s): ${error.message}`
    );
    await r.clock.advanceTo(19_999);
    expect(r.dog.signal.aborted).toBe(false);
    await r.clock.advanceTo(20_000);
    expect(r.lostAt()).toBe(20_000);
    expect(lostError(r).message).toBe(
      `Builder b1 was lost during the build: unreachable for 20 s (last: ${error.message})`
    );
  });

  test('a probe recovering at 15 s resets the window: lost 20 s after that success, not before', async () => {
    const clock = new ManualClock();
    const r = rig({
      clock,
      probes: {
        '10.0.0.1': [
          () => {
            if (clock.now() !== 15_000) throw unreachable('10.0.0.1:1234');
          }
        ]
      }
    });
    r.dog.start();
    await clock.advanceTo(20_000);
    expect(r.dog.signal.aborted).toBe(false);
    await clock.advanceTo(34_999);
    expect(r.dog.signal.aborted).toBe(false);
    expect(r.logger.messages('debug')).toContain('BuilderWatchdog: b1: TLS check of 10.0.0.1:1234 succeeded');
    await clock.advanceTo(35_000);
    expect(r.lostAt()).toBe(35_000);
    expect(lostError(r).why).toMatch(/^unreachable for 20 s \(last: nothing accepts TLS connections/);
  });

  test.each([
    {successMs: 0, deathOffset: 0},
    {successMs: 0, deathOffset: 3000},
    {successMs: 4999, deathOffset: 2500},
    {successMs: 4999, deathOffset: 7777},
    {successMs: 2500, deathOffset: 11_000}
  ])(
    'defaults, worst case: probes hang until their timeout once the builder dies; details never answer → lost within 45 s (successes take $successMs ms, death at +$deathOffset ms)',
    async ({successMs, deathOffset}) => {
      const clock = new ManualClock();
      const deathAt = 10_000 + deathOffset;
      let lastSuccess = 0;
      const hang = hangsUntilTimeout(clock) as (o: TlsProbeOpts) => Promise<void>;
      const r = rig({
        clock,
        details: {b1: [hangUntilAborted]},
        probes: {
          '10.0.0.1': [
            async opts => {
              if (clock.now() >= deathAt) return hang(opts);
              const started = clock.now();
              await clock.sleep(successMs, opts.signal);
              if (clock.now() < deathAt) return void (lastSuccess = clock.now());
              // Died while we were asking: no answer until the time limit.
              await clock.sleep(started + opts.timeoutMs - clock.now(), opts.signal);
              throw new TlsProbeError('timeout', 'no handshake');
            }
          ]
        }
      });
      r.dog.start();
      await clock.advanceTo(deathAt + 45_000);
      const lostAt = r.lostAt();
      expect(lostAt).toBeDefined();
      expect((lostAt as number) - deathAt).toBeLessThanOrEqual(45_000);
      // Never earlier than the window allows.
      expect((lostAt as number) - lastSuccess).toBeGreaterThanOrEqual(20_000);
      expect(lostError(r).why).toMatch(/^unreachable for \d+ s \(last: /);
    }
  );

  test('a probe that never answers, even past its own time limit, is abandoned and counts: lost within 45 s', async () => {
    const r = rig({
      details: {b1: [hangUntilAborted]},
      probes: {'10.0.0.1': [() => new Promise<void>(() => undefined)]}
    });
    r.dog.start();
    await r.clock.advanceTo(45_000);
    expect(r.lostAt()).toBeLessThanOrEqual(45_000);
    expect(lostError(r).why).toMatch(
      /^unreachable for \d+ s \(last: no TLS handshake with 10\.0\.0\.1:1234 within 5000 ms\)$/
    );
  });

  test('at most one details request and one probe in flight per builder, even when both outlast the interval', async () => {
    const clock = new ManualClock();
    const inFlight = {details: 0, probes: 0};
    const most = {details: 0, probes: 0};
    const starts = {details: [] as number[], probes: [] as number[]};
    const track = async (kind: 'details' | 'probes', work: () => Promise<void>): Promise<void> => {
      starts[kind].push(clock.now());
      most[kind] = Math.max(most[kind], ++inFlight[kind]);
      try {
        await work();
      } finally {
        inFlight[kind]--;
      }
    };
    const r = rig({
      clock,
      details: {
        b1: [
          async ({signal}) => {
            // 12 s: past the 10 s limit, so the watchdog abandons it.
            await track('details', () => clock.sleep(12_000, signal));
            return details('ready');
          }
        ]
      },
      // 5.5 s: past the interval but within the grace after the probe's own limit.
      probes: {'10.0.0.1': [opts => track('probes', () => clock.sleep(5500, opts.signal))]}
    });
    r.dog.start();
    await clock.advanceTo(60_000);
    expect(most).toEqual({details: 1, probes: 1});
    expect(starts.details).toEqual([5000, 15_000, 25_000, 35_000, 45_000, 55_000]);
    expect(starts.probes).toEqual([
      5000, 10_500, 16_000, 21_500, 27_000, 32_500, 38_000, 43_500, 49_000, 54_500, 60_000
    ]);
    expect(r.dog.signal.aborted).toBe(false);
  });
});

describe('BuilderWatchdog: stop', () => {
  test('stop() aborts in-flight calls and clears timers; after it resolves, no more calls; idempotent', async () => {
    const r = rig({details: {b1: [hangUntilAborted]}, probes: {'10.0.0.1': [opts => hangUntilAborted<void>(opts)]}});
    r.dog.start();
    await r.clock.advanceTo(5000);
    expect(r.traffic()).toEqual({details: 1, probes: 1});
    const inFlight = [r.api.detailsCalls[0]?.signal, r.probe.calls[0]?.signal];
    expect(inFlight.map(s => s?.aborted)).toEqual([false, false]);
    await r.dog.stop();
    expect(inFlight.map(s => s?.aborted)).toEqual([true, true]);
    expect(r.clock.pending).toBe(0);
    await r.clock.advance(120_000);
    expect(r.traffic()).toEqual({details: 1, probes: 1});
    await r.dog.stop();
    r.dog.start();
    await r.clock.advance(60_000);
    expect(r.traffic()).toEqual({details: 1, probes: 1});
    expect(r.dog.signal.aborted).toBe(false);
  });

  test('stop() resolves even when the API and the probe ignore their abort signal; nothing more is sent', async () => {
    const never = (): Promise<never> => new Promise<never>(() => undefined);
    const r = rig({details: {b1: [never]}, probes: {'10.0.0.1': [never]}});
    r.dog.start();
    await r.clock.advanceTo(5000);
    await r.dog.stop();
    await r.clock.advance(60_000);
    expect(r.traffic()).toEqual({details: 1, probes: 1});
    expect(r.clock.pending).toBe(0);
  });

  test('stop() before start(): start() then does nothing', async () => {
    const r = rig();
    await r.dog.stop();
    r.dog.start();
    await r.clock.advance(60_000);
    expect(r.traffic()).toEqual({details: 0, probes: 0});
    expect(r.logger.lines).toEqual([]);
  });

  test('failures that arrive after stop() are not a loss', async () => {
    // Both calls ignore their signal and fail once the build has ended; with lostAfterMs 1 either would count.
    const detailsAnswer = deferred<BuilderDetails>();
    const probeAnswer = deferred<void>();
    const r = rig({
      details: {b1: [() => detailsAnswer.promise]},
      opts: {lostAfterMs: 1},
      probes: {'10.0.0.1': [() => probeAnswer.promise]}
    });
    r.dog.start();
    await r.clock.advanceTo(5000);
    expect(r.traffic()).toEqual({details: 1, probes: 1});
    await r.dog.stop();
    detailsAnswer.reject(httpError('get builder details', 404));
    probeAnswer.reject(unreachable('10.0.0.1:1234'));
    await r.clock.advance(60_000);
    expect(r.dog.signal.aborted).toBe(false);
    expect(r.traffic()).toEqual({details: 1, probes: 1});
  });
});

describe('BuilderWatchdog: with a build', () => {
  /** How an action uses it: start, build with the watchdog's signal, stop whatever happened. */
  async function build(r: Rig, buildMs: number, events: string[]): Promise<void> {
    r.dog.start();
    try {
      await r.clock.sleep(buildMs, r.dog.signal);
      events.push(`build finished at ${r.clock.now()}`);
    } catch (e) {
      events.push(`build stopped at ${r.clock.now()}: ${(e as Error).message}`);
    } finally {
      await r.dog.stop();
      events.push('watchdog stopped');
    }
  }

  test('two builders, one lost → the build stops at once and the error names that builder; watching ends', async () => {
    const clock = new ManualClock();
    const r = rig({
      clock,
      builders: [builder('b1', '10.0.0.1'), builder('b2', '10.0.0.2')],
      details: {
        b1: [details('ready')],
        b2: [
          details('ready', '10.0.0.2:1234'),
          details('ready', '10.0.0.2:1234'),
          details('terminated', '10.0.0.2:1234')
        ]
      }
    });
    const events: string[] = [];
    const done = build(r, 3_600_000, events);
    await clock.advanceTo(14_999);
    expect(events).toEqual([]);
    await clock.advanceTo(15_000);
    await done;
    expect(events).toEqual([
      'build stopped at 15000: Builder b2 was lost during the build: its status is "terminated"',
      'watchdog stopped'
    ]);
    expect(lostError(r).builderId).toBe('b2');
    const after = r.traffic();
    await clock.advance(60_000);
    expect(r.traffic()).toEqual(after);
  });

  test('the build ends normally → no watching traffic afterwards', async () => {
    const r = rig();
    const events: string[] = [];
    const done = build(r, 12_000, events);
    await r.clock.advanceTo(12_000);
    await done;
    expect(events).toEqual(['build finished at 12000', 'watchdog stopped']);
    expect(r.traffic()).toEqual({details: 2, probes: 2});
    await r.clock.advance(600_000);
    expect(r.traffic()).toEqual({details: 2, probes: 2});
    expect(r.dog.signal.aborted).toBe(false);
  });
});

describe('BuilderWatchdog: with the system clock', () => {
  test('a builder that stops answering is lost; after stop() nothing more is sent', async () => {
    const api = new FakeBuilderApi().onDetails('b1', details('ready'));
    const probe = new FakeProbe().on('10.0.0.1', unreachable('10.0.0.1:1234'));
    // The system clock, counted: a sleep not yet over after stop() would be a watchdog still going.
    let sleeping = 0;
    const clock: Clock = {
      now: () => systemClock.now(),
      sleep: (ms, signal) => {
        sleeping++;
        return systemClock.sleep(ms, signal).finally(() => sleeping--);
      },
      deadline: (ms, opts) => systemClock.deadline(ms, opts)
    };
    const dog = new BuilderWatchdog({
      api,
      probe: probe.probe,
      builders: [builder('b1', '10.0.0.1')],
      intervalMs: 5,
      lostAfterMs: 20,
      clock
    });
    const lost = new Promise<unknown>(resolve =>
      dog.signal.addEventListener('abort', () => resolve(dog.signal.reason))
    );
    dog.start();
    await expect(lost).resolves.toBeInstanceOf(BuilderLostError);
    await dog.stop();
    const after = {details: api.detailsCalls.length, probes: probe.calls.length};
    // How many probes fit before 20 ms of real time pass depends on the machine's load (one, on a busy
    // one); the fake-clock tests above pin the count. Here: real timers lose it, and stop() silences it.
    expect(after.probes).toBeGreaterThanOrEqual(1);
    expect(sleeping).toBe(0);
  });
});
