import {describe, expect, test} from '@jest/globals';
import {ApiError} from '../../src/errors.js';
import {CancelledError} from '../../src/lifecycle/cancelled-error.js';
import {
  BuilderFailedError,
  BuilderTimeoutError,
  DEFAULT_POLL_SCHEDULE,
  detailsPeriod,
  explainTimeout,
  waitForBuilderReady,
  type PollSchedule,
  type ReadyBuilder
} from '../../src/lifecycle/readiness.js';
import {
  FakeBuilderApi,
  hangUntilAborted,
  httpError,
  pendingDetails,
  readyDetails,
  type DetailsStep
} from '../fakes/fake-builder-api.js';
import {FakeClock} from '../fakes/fake-clock.js';
import {FakeProbe, rejected, unreachable, type ProbeStep} from '../fakes/fake-probe.js';
import {TlsProbeError} from '../../src/lifecycle/tls-probe.js';
import {TEST_KEY_SECRET_LINES, TEST_PEMS} from '../fakes/pems.js';
import {RecordingLogger} from '../fakes/recording-logger.js';
import {failure} from '../fakes/failure.js';

const schedule: PollSchedule = {intervalMs: 100, probeIntervalMs: 50, maxBackoffMs: 400};
const HOST = '10.0.0.1:1234';
const pems = {ca: TEST_PEMS.ca, cert: TEST_PEMS.cert, key: TEST_PEMS.key};

interface Harness {
  api: FakeBuilderApi;
  clock: FakeClock;
  logger: RecordingLogger;
  probe: FakeProbe;
  run: (opts?: {
    deadline?: number;
    signal?: AbortSignal;
    schedule?: PollSchedule | null;
    details404GraceMs?: number;
  }) => Promise<ReadyBuilder>;
}

function harness(details: DetailsStep[], probeSteps: ProbeStep[] = []): Harness {
  const api = new FakeBuilderApi().onDetails('b1', ...details);
  const clock = new FakeClock();
  const logger = new RecordingLogger();
  const probe = new FakeProbe().on('10.0.0.1', ...probeSteps);
  const run: Harness['run'] = (o = {}) =>
    waitForBuilderReady('b1', {
      api,
      clock,
      logger,
      probe: probe.probe,
      deadline: o.deadline ?? 60_000,
      ...(o.signal ? {signal: o.signal} : {}),
      ...(o.details404GraceMs !== undefined ? {details404GraceMs: o.details404GraceMs} : {}),
      ...(o.schedule === null ? {} : {schedule: o.schedule ?? schedule})
    });
  return {api, clock, logger, probe, run};
}

/** A details request the service holds until aborted, while the clock moves to `deadline`. */
function hangPast<T>(h: Harness, deadline: number, arg: {signal?: AbortSignal}): Promise<T> {
  const hang = hangUntilAborted<T>(arg);
  h.clock.advance(deadline - h.clock.now());
  return hang;
}

describe('waitForBuilderReady: ready', () => {
  test('complete details and a successful probe → ready at once', async () => {
    const h = harness([readyDetails(HOST)]);
    const ready = await h.run({deadline: 60_000});
    expect(ready).toEqual({
      id: 'b1',
      endpoint: {hostname: '10.0.0.1', port: 1234, url: 'tcp://10.0.0.1:1234', defaultedPort: false},
      platforms: [],
      pems,
      detailsRequests: 1,
      details: readyDetails(HOST)
    });
    expect(ready.arch).toBeUndefined();
    expect(h.clock.sleeps).toEqual([]);
    expect(h.probe.calls).toEqual([{hostname: '10.0.0.1', port: 1234, pems, timeoutMs: 5000, signal: undefined}]);
  });

  test('details are asked without client retries and with a live, time-limited signal', async () => {
    const h = harness([readyDetails(HOST)]);
    await h.run();
    expect(h.api.detailsCalls).toHaveLength(1);
    expect(h.api.detailsCalls[0]?.retry).toBe(false);
    expect(h.api.detailsCalls[0]?.signal).toBeInstanceOf(AbortSignal);
    expect(h.api.detailsCalls[0]?.signal?.aborted).toBe(false);
  });

  // prettier-ignore
  test.each<[number, string | undefined, string[]]>([
    [1, 'amd64', ['linux/amd64']],
    [2, 'arm64', ['linux/arm64']],
    [3, 'amd64,arm64', ['linux/amd64', 'linux/arm64']],
    [4, 'linux/arm64', ['linux/arm64']]
  ])('[%d] arch %o → platforms %o', async (_n, arch, platforms) => {
    const h = harness([readyDetails(HOST, {arch})]);
    const ready = await h.run();
    expect(ready.arch).toBe(arch);
    expect(ready.platforms).toEqual(platforms);
  });

  test('a host without a port → the default port, marked as assumed', async () => {
    const h = harness([readyDetails('10.0.0.1')]);
    const ready = await h.run();
    expect(ready.endpoint).toEqual({hostname: '10.0.0.1', port: 2376, url: 'tcp://10.0.0.1:2376', defaultedPort: true});
    expect(h.probe.calls[0]?.port).toBe(2376);
  });

  // prettier-ignore
  test.each<[number, string]>([
    [1, 'ready'],
    [2, 'READY'],
    [3, 'Ready']
  ])('[%d] status %o counts as ready', async (_n, status) => {
    const h = harness([readyDetails(HOST, {status})]);
    await expect(h.run()).resolves.toMatchObject({id: 'b1', detailsRequests: 1});
  });

  test('onComplete is told once, before the first probe, of the builder the probes then prove ready', async () => {
    const h = harness([readyDetails(HOST)], [unreachable(), 'ok']);
    const told: {probesBefore: number; builder: ReadyBuilder}[] = [];
    const ready = await waitForBuilderReady('b1', {
      api: h.api,
      clock: h.clock,
      logger: h.logger,
      probe: h.probe.probe,
      deadline: 60_000,
      schedule,
      onComplete: builder => void told.push({probesBefore: h.probe.calls.length, builder})
    });
    expect(h.probe.calls).toHaveLength(2);
    expect(told).toEqual([{probesBefore: 0, builder: ready}]);
  });

  describe('onComplete returns a proof (the Control/Info call)', () => {
    /** A wait whose onComplete returns proof(); `asked` once it has been called (its time limit starts then). */
    function waitWithProof(
      h: Harness,
      proof: () => Promise<boolean>,
      extra: {deadline?: number; signal?: AbortSignal} = {}
    ): {pending: Promise<ReadyBuilder>; asked: () => Promise<void>} {
      let asked = false;
      const pending = waitForBuilderReady('b1', {
        api: h.api,
        clock: h.clock,
        logger: h.logger,
        probe: h.probe.probe,
        deadline: extra.deadline ?? 60_000,
        schedule,
        signal: extra.signal,
        onComplete: () => ((asked = true), proof())
      });
      const untilAsked = async (): Promise<void> => {
        while (!asked) await new Promise(resolve => setImmediate(resolve));
      };
      return {pending, asked: untilAsked};
    }
    const never = (): Promise<boolean> => new Promise<boolean>(() => undefined);

    test.each<[string, () => Promise<boolean>, number]>([
      ['proved (the Control/Info connection saw the HTTP/2 server) → no probe', () => Promise.resolve(true), 0],
      ['not proved → the probe decides', () => Promise.resolve(false), 1],
      ['a proof that fails → the probe decides', () => Promise.reject(new Error('boom')), 1]
    ])('%s', async (_what, proof, probes) => {
      const h = harness([readyDetails(HOST)]);
      await expect(waitWithProof(h, proof).pending).resolves.toMatchObject({id: 'b1'});
      expect(h.probe.calls).toHaveLength(probes);
    });

    test('still under way after 2 s → the probe decides, with its own time limit', async () => {
      const h = harness([readyDetails(HOST)]);
      const {pending, asked} = waitWithProof(h, never);
      await asked();
      h.clock.advance(1999);
      await new Promise(resolve => setImmediate(resolve));
      expect(h.probe.calls).toHaveLength(0);
      h.clock.advance(1);
      await expect(pending).resolves.toMatchObject({id: 'b1'});
      expect(h.probe.calls).toEqual([expect.objectContaining({timeoutMs: 5000})]);
    });

    test('near the deadline the proof is awaited half the time left: the probe decides with the other half', async () => {
      const h = harness([readyDetails(HOST)]);
      const {pending, asked} = waitWithProof(h, never, {deadline: 1000});
      await asked();
      h.clock.advance(499);
      await new Promise(resolve => setImmediate(resolve));
      expect(h.probe.calls).toHaveLength(0);
      h.clock.advance(1);
      await expect(pending).resolves.toMatchObject({id: 'b1'});
      expect(h.probe.calls).toEqual([expect.objectContaining({timeoutMs: 500})]);
    });

    test('still under way at the deadline → the timeout, saying what was awaited; no probe', async () => {
      const h = harness([readyDetails(HOST)]);
      const {pending, asked} = waitWithProof(h, never, {deadline: 1000});
      await asked();
      h.clock.advance(1000);
      const e = await failure(pending, BuilderTimeoutError);
      expect(e.message).toBe(
        'Builder b1 was not ready in time: the builder at 10.0.0.1:1234 had not answered over mutual TLS (its first connection, a Control/Info call) by the deadline'
      );
      expect(h.probe.calls).toHaveLength(0);
    });

    test('cancelled while under way → cancelled, no probe', async () => {
      const h = harness([readyDetails(HOST)]);
      const controller = new AbortController();
      const {pending, asked} = waitWithProof(h, never, {signal: controller.signal});
      await asked();
      controller.abort(new CancelledError('test'));
      await expect(pending).rejects.toBeInstanceOf(CancelledError);
      expect(h.probe.calls).toHaveLength(0);
    });
  });

  test('the probe time limit is min(5000, time left)', async () => {
    const h = harness([readyDetails(HOST)]);
    await h.run({deadline: 3000});
    expect(h.probe.calls[0]?.timeoutMs).toBe(3000);
  });
});

describe('waitForBuilderReady: polling', () => {
  // prettier-ignore
  test.each<[number, string, DetailsStep, string]>([
    [1, 'status pending with every field', readyDetails(HOST, {status: 'pending'}), 'status is "pending"'],
    [2, 'status provisioning with every field', readyDetails(HOST, {status: 'Provisioning'}), 'status is "provisioning"'],
    [3, 'nothing yet', pendingDetails(), 'details lack host, ca, client_cert, client_key'],
    [4, 'nothing yet, status pending', pendingDetails({status: 'pending'}), 'details lack host, ca, client_cert, client_key (status "pending")'],
    [5, 'no host', readyDetails('', {}, {}), 'details lack host'],
    [6, 'blank host', readyDetails('   '), 'details lack host'],
    [7, 'no ca', readyDetails(HOST, {}, {ca: ''}), 'details lack ca'],
    [8, 'no client_cert', readyDetails(HOST, {}, {client_cert: ''}), 'details lack client_cert'],
    [9, 'no client_key', readyDetails(HOST, {}, {client_key: ''}), 'details lack client_key'],
    [10, 'ca and key missing, status ready', readyDetails(HOST, {status: 'ready'}, {ca: '', client_key: ''}), 'details lack ca, client_key (status "ready")']
  ])('[%d] %s → polls at intervalMs, then ready once complete', async (_n, _what, notYet, _why) => {
    const h = harness([notYet, notYet, readyDetails(HOST)]);
    const ready = await h.run();
    expect(ready.detailsRequests).toBe(3);
    expect(h.clock.sleeps).toEqual([100, 100]);
    expect(h.probe.calls).toHaveLength(1);
  });

  // prettier-ignore
  test.each<[number, DetailsStep, string]>([
    [1, readyDetails(HOST, {status: 'pending'}), 'Builder b1 was not ready in time: status is "pending"'],
    [2, pendingDetails(), 'Builder b1 was not ready in time: details lack host, ca, client_cert, client_key'],
    [3, readyDetails(HOST, {status: 'starting'}, {client_cert: ''}), 'Builder b1 was not ready in time: details lack client_cert (status "starting")']
  ])('[%d] never complete → BuilderTimeoutError at the deadline naming the last problem', async (_n, notYet, message) => {
    const h = harness([notYet]);
    const e = await failure(h.run({deadline: 1000}));
    expect(e).toBeInstanceOf(BuilderTimeoutError);
    expect(e.message).toBe(message);
    expect((e as BuilderTimeoutError).builderId).toBe('b1');
    expect(h.api.detailsCount('b1')).toBe(10);
    expect(h.clock.sleeps).toEqual(Array(10).fill(100));
    expect(h.clock.now()).toBe(1000);
    expect(h.probe.calls).toEqual([]);
  });

  test('the last sleep is clamped to the deadline', async () => {
    const h = harness([pendingDetails()]);
    await expect(h.run({deadline: 250})).rejects.toBeInstanceOf(BuilderTimeoutError);
    expect(h.clock.sleeps).toEqual([100, 100, 50]);
    expect(h.api.detailsCount('b1')).toBe(3);
  });

  test('a deadline already passed → timeout without a request', async () => {
    const h = harness([readyDetails(HOST)]);
    h.clock.t = 5000;
    const e = await failure(h.run({deadline: 5000}));
    expect(e).toBeInstanceOf(BuilderTimeoutError);
    expect(e.message).toBe('Builder b1 was not ready in time: no details received yet');
    expect(h.api.detailsCalls).toEqual([]);
  });

  test('the period is start-to-start: a slow answer shortens the sleep', async () => {
    const h = harness([
      () => {
        h.clock.advance(30);
        return pendingDetails();
      },
      () => {
        h.clock.advance(150);
        return pendingDetails();
      },
      readyDetails(HOST)
    ]);
    await h.run();
    expect(h.clock.sleeps).toEqual([70]);
    expect(h.api.detailsCount('b1')).toBe(3);
  });

  test('without a schedule, the default one is used: details every 250 ms at first, TLS probes every 250 ms', async () => {
    const h = harness([pendingDetails(), readyDetails(HOST)], [unreachable(), 'ok']);
    await h.run({schedule: null});
    expect(h.clock.sleeps).toEqual([250, 250]);
  });

  // prettier-ignore
  test.each<[number, number]>([
    [0, 250], [14_999, 250], [15_000, 1000], [60_000, 1000], [600_000, 1000]
  ])('the default details period after %d ms of waiting is %d ms', (elapsed, period) => {
    expect(detailsPeriod(DEFAULT_POLL_SCHEDULE, elapsed)).toBe(period);
  });

  test('what the service pays: over a minute of pending details, at most 4 requests in any second and 120 in all', async () => {
    const h = harness([pendingDetails()]);
    const at: number[] = [];
    const api = h.api.getBuilderDetails.bind(h.api);
    h.api.getBuilderDetails = (id, o) => {
      at.push(h.clock.now());
      return api(id, o);
    };
    await failure(h.run({schedule: null, deadline: h.clock.now() + 60_000}));
    // 60 requests in the first 15 s (every 250 ms), then one a second: 45 more before 60 s.
    expect(at).toHaveLength(105);
    for (let i = 4; i < at.length; i++) expect(at[i]! - at[i - 4]!).toBeGreaterThanOrEqual(1000);
  });

  test('a 429 with Retry-After: waited out once, then this builder polls at twice its period', async () => {
    const h = harness(
      [
        pendingDetails(),
        new ApiError({call: 'get builder details', status: 429, retryAfterMs: 3000}),
        pendingDetails(),
        pendingDetails(),
        readyDetails(HOST)
      ],
      ['ok']
    );
    await h.run({schedule: null});
    expect(h.clock.sleeps).toEqual([250, 3000, 500, 500]);
  });

  test('429s without Retry-After: each doubles the period for the rest of the wait, up to 5 s', async () => {
    const h = harness(
      [
        new ApiError({call: 'get builder details', status: 429}),
        new ApiError({call: 'get builder details', status: 429}),
        pendingDetails(),
        new ApiError({call: 'get builder details', status: 429}),
        pendingDetails(),
        readyDetails(HOST)
      ],
      ['ok']
    );
    await h.run({schedule: null});
    // Backoff (the period·2^n, ≤ 2 s) or the throttled period, whichever is longer; a success keeps the throttle.
    expect(h.clock.sleeps).toEqual([500, 2000, 1000, 2000, 2000]);
  });
});

describe('waitForBuilderReady: failures', () => {
  // prettier-ignore
  test.each<[number, string, string]>([
    [1, 'failed', 'Builder b1 failed to start (status "failed")'],
    [2, 'FAILED', 'Builder b1 failed to start (status "FAILED")'],
    [3, 'error', 'Builder b1 failed to start (status "error")'],
    [4, 'terminated', 'Builder b1 was terminated before it became ready'],
    [5, 'deleted', 'Builder b1 was terminated before it became ready']
  ])('[%d] status %o fails at once with BuilderFailedError', async (_n, status, message) => {
    const h = harness([pendingDetails({status: 'pending'}), pendingDetails({status}), readyDetails(HOST)]);
    const e = await failure(h.run());
    expect(e).toBeInstanceOf(BuilderFailedError);
    expect(e.message).toBe(message);
    expect((e as BuilderFailedError).builderId).toBe('b1');
    expect(h.api.detailsCount('b1')).toBe(2);
    expect(h.clock.sleeps).toEqual([100]);
  });

  test('status failed wins even when every field is present', async () => {
    const h = harness([readyDetails(HOST, {status: 'failed'})]);
    await expect(h.run()).rejects.toBeInstanceOf(BuilderFailedError);
    expect(h.probe.calls).toEqual([]);
  });

  // prettier-ignore
  test.each<[number, number]>([
    [1, 401],
    [2, 403]
  ])('[%d] HTTP %d fails at once with the ApiError', async (_n, status) => {
    const err = httpError('get builder details', status, 'unauthorized');
    const h = harness([err, readyDetails(HOST)]);
    const e = await failure(h.run());
    expect(e).toBe(err);
    expect(h.api.detailsCount('b1')).toBe(1);
    expect(h.clock.sleeps).toEqual([]);
  });

  test('404s right after the assignment mean "not visible yet" (an eventually consistent service): polled, then ready', async () => {
    const nf = (): ApiError => httpError('get builder details', 404);
    const h = harness([nf(), nf(), nf(), nf(), readyDetails(HOST)]);
    const ready = await h.run();
    expect(ready.detailsRequests).toBe(5);
    // Polled like a pending builder (the normal interval, at most 4 requests a second), not backed off.
    expect(h.clock.sleeps).toEqual([100, 100, 100, 100]);
  });

  test('a 404 once 10 s (the default grace) have passed since the assignment fails with it: the builder is gone', async () => {
    const last = httpError('get builder details', 404, 'no such builder');
    const nf = (): ApiError => httpError('get builder details', 404);
    // Three 404s inside the grace; the fourth comes once it has passed and fails the wait.
    const h = harness([
      nf(),
      nf(),
      nf(),
      () => {
        h.clock.advance(10_000);
        throw last;
      },
      readyDetails(HOST)
    ]);
    const e = await failure(h.run());
    expect(e).toBe(last);
    expect(e.message).toBe('Failed to get builder details: HTTP 404: no such builder');
    expect(h.api.detailsCount('b1')).toBe(4);
  });

  test('a grace set shorter (REMOTE_BUILDER_DETAILS_404_GRACE_MS) ends the tolerance sooner; 0 fails at the first 404', async () => {
    const nf = (): ApiError => httpError('get builder details', 404);
    const h = harness([nf(), nf(), nf(), readyDetails(HOST)]);
    // Sleeps of 100 ms: the third 404 comes at 200 ms, past a grace of 150 ms.
    await expect(h.run({details404GraceMs: 150})).rejects.toThrow('HTTP 404');
    expect(h.api.detailsCount('b1')).toBe(3);
    const h0 = harness([nf(), readyDetails(HOST)]);
    await expect(h0.run({details404GraceMs: 0})).rejects.toThrow('HTTP 404');
    expect(h0.api.detailsCount('b1')).toBe(1);
  });

  test('a details request that hangs is cut at the deadline (on the clock), and the failure says so', async () => {
    // The service holds the request while the clock passes the deadline.
    const h: Harness = harness([arg => hangPast(h, 250, arg)]);
    const e = await failure(h.run({deadline: 250}));
    expect(e).toBeInstanceOf(BuilderTimeoutError);
    expect(e.message).toBe(
      'Builder b1 was not ready in time: the details request got no answer before the readiness deadline'
    );
    // The service not answering is not the builder starting slowly: no "raise the timeout" advice follows.
    expect((e as BuilderTimeoutError).serviceFailure).toBe(
      'the details request got no answer before the readiness deadline'
    );
    expect((e as BuilderTimeoutError).serviceSilent).toBe(true);
  });

  test('a deadline that cuts a request in flight keeps what the service last answered (here HTTP 500)', async () => {
    const h: Harness = harness([httpError('get builder details', 500, 'down'), arg => hangPast(h, 300, arg)]);
    const e = await failure(h.run({deadline: 300}));
    expect(e).toBeInstanceOf(BuilderTimeoutError);
    expect(e.message).toBe('Builder b1 was not ready in time: Failed to get builder details: HTTP 500: down');
    expect((e as BuilderTimeoutError).serviceFailure).toBe('Failed to get builder details: HTTP 500: down');
    expect((e as BuilderTimeoutError).serviceSilent).toBe(false);
  });

  test('while 404s are tolerated, the deadline names them', async () => {
    const h = harness([httpError('get builder details', 404)]);
    const e = await failure(h.run({deadline: 3000}));
    expect(e).toBeInstanceOf(BuilderTimeoutError);
    expect(e.message).toBe(
      `Builder b1 was not ready in time: the service does not show builder b1 yet (details answered HTTP 404 within 10000 ms of the assignment)`
    );
    expect((e as BuilderTimeoutError).serviceFailure).toBeUndefined();
  });

  test('5xx and network errors back off (doubling, capped at maxBackoffMs) and recover', async () => {
    const h = harness([
      httpError('get builder details', 503),
      httpError('get builder details', 502),
      new ApiError({call: 'get builder details', code: 'ECONNRESET'}),
      httpError('get builder details', 500),
      readyDetails(HOST)
    ]);
    const ready = await h.run();
    expect(ready.detailsRequests).toBe(5);
    expect(h.clock.sleeps).toEqual([200, 400, 400, 400]);
    expect(h.logger.messages('debug')).toEqual([
      'waitForBuilderReady: b1: Failed to get builder details: HTTP 503',
      'waitForBuilderReady: b1: Failed to get builder details: HTTP 502',
      'waitForBuilderReady: b1: Failed to get builder details: ECONNRESET',
      'waitForBuilderReady: b1: Failed to get builder details: HTTP 500',
      'waitForBuilderReady: b1: ready'
    ]);
  });

  test('the backoff restarts after a good answer', async () => {
    const h = harness([
      httpError('get builder details', 503),
      pendingDetails(),
      httpError('get builder details', 503),
      readyDetails(HOST)
    ]);
    await h.run();
    expect(h.clock.sleeps).toEqual([200, 100, 200]);
  });

  test('errors until the deadline → BuilderTimeoutError naming the last error', async () => {
    const h = harness([httpError('get builder details', 503, 'overloaded')]);
    const e = await failure(h.run({deadline: 1000}));
    expect(e).toBeInstanceOf(BuilderTimeoutError);
    expect(e.message).toBe('Builder b1 was not ready in time: Failed to get builder details: HTTP 503: overloaded');
    expect(h.clock.sleeps).toEqual([200, 400, 400]);
  });

  // prettier-ignore
  test.each<[number, Partial<Record<'ca' | 'client_cert' | 'client_key', string>>, string]>([
    [1, {ca: 'not a pem'}, 'Builder b1 details carry a malformed ca: not a PEM block'],
    [2, {client_cert: 'MIIBfake'}, 'Builder b1 details carry a malformed client_cert: not a PEM block'],
    [3, {client_key: '-----BEGIN PRIVATE KEY-----\nabc'}, 'Builder b1 details carry a malformed client_key: not a PEM block']
  ])('[%d] malformed PEM %o fails at once', async (_n, metadata, message) => {
    const h = harness([readyDetails(HOST, {}, metadata)]);
    const e = await failure(h.run());
    expect(e).toBeInstanceOf(BuilderFailedError);
    expect(e.message).toBe(message);
    expect(h.probe.calls).toEqual([]);
    expect(h.clock.sleeps).toEqual([]);
  });

  // prettier-ignore
  test.each<[number, string, string]>([
    [1, 'http://x', 'Builder b1 details carry an unusable host: the builder host "http://x" uses http://; expected tcp://'],
    [2, 'h/path', 'Builder b1 details carry an unusable host: the builder host "h/path" has a path, query, fragment or user part; expected host[:port]']
  ])('[%d] an unusable host %o fails at once', async (_n, host, message) => {
    const h = harness([readyDetails(host)]);
    const e = await failure(h.run());
    expect(e).toBeInstanceOf(BuilderFailedError);
    expect(e.message).toBe(message);
  });
});

describe('explainTimeout', () => {
  const starting = new BuilderTimeoutError('b1', 'Builder b1 was not ready in time: status is "starting"');
  const failing = new BuilderTimeoutError('b1', 'Builder b1 was not ready in time: HTTP 500', 'HTTP 500');
  const silent = new BuilderTimeoutError('b1', 'Builder b1 was not ready in time: no answer', 'no answer', true);
  test.each([
    [starting, 'timeout', 'Timed out after 600 ms: raise the "timeout" input if the profile needs longer to start'],
    [starting, '--timeout', 'Timed out after 600 ms: raise --timeout if the profile needs longer to start'],
    [
      failing,
      'timeout',
      'Timed out after 600 ms: the service kept failing until then, so a longer "timeout" would not help: try again later, and check the service\'s status if it persists'
    ],
    [
      silent,
      'timeout',
      'Timed out after 600 ms: the service did not answer its last request, so raise the "timeout" input only if the service is slow rather than down, and check the service\'s status if it persists'
    ],
    [
      silent,
      '--timeout',
      "Timed out after 600 ms: the service did not answer its last request, so raise --timeout only if the service is slow rather than down, and check the service's status if it persists"
    ]
  ])('%#: %s named %s', (e, name, advice) => {
    const explained = explainTimeout(e, 600, name) as Error;
    expect(explained.message).toBe(`${e.message}. ${advice}`);
    expect(explained.cause).toBe(e);
  });

  test('other errors pass through unchanged', () => {
    const other = new Error('boom');
    expect(explainTimeout(other, 600, 'timeout')).toBe(other);
  });
});

describe('waitForBuilderReady: TLS probe', () => {
  test('unreachable is retried at probeIntervalMs without asking the details again', async () => {
    const h = harness([readyDetails(HOST)], [unreachable(), unreachable(), 'ok']);
    const ready = await h.run();
    expect(ready.detailsRequests).toBe(1);
    expect(h.probe.calls).toHaveLength(3);
    expect(h.clock.sleeps).toEqual([50, 50]);
  });

  test('a timeout or an unexpected probe error is retried too', async () => {
    const h = harness([readyDetails(HOST)], [new Error('boom'), 'ok']);
    await expect(h.run()).resolves.toMatchObject({id: 'b1'});
    expect(h.probe.calls).toHaveLength(2);
  });

  test('rejected three times → BuilderFailedError', async () => {
    const h = harness([readyDetails(HOST)], [rejected()]);
    const e = await failure(h.run());
    expect(e).toBeInstanceOf(BuilderFailedError);
    expect(e.message).toBe(
      'Builder b1 at 10.0.0.1:1234 rejected the TLS material from its details: the mutual-TLS handshake with 10.0.0.1:1234 failed: certificate signature failure'
    );
    expect(h.probe.calls).toHaveLength(3);
    expect(h.clock.sleeps).toEqual([50, 50]);
  });

  test('two rejections are tolerated', async () => {
    const h = harness([readyDetails(HOST)], [rejected(), unreachable(), rejected(), 'ok']);
    await expect(h.run()).resolves.toMatchObject({id: 'b1'});
    expect(h.probe.calls).toHaveLength(4);
  });

  test('unreachable until the deadline → BuilderTimeoutError naming the probe problem', async () => {
    const h = harness([readyDetails(HOST)], [unreachable()]);
    const e = await failure(h.run({deadline: 500}));
    expect(e).toBeInstanceOf(BuilderTimeoutError);
    expect(e.message).toBe(
      'Builder b1 was not ready in time: nothing accepts TLS connections at 10.0.0.1:1234 yet (ECONNREFUSED)'
    );
    expect(h.probe.calls).toHaveLength(10);
    expect(h.probe.calls.map(c => c.timeoutMs)).toEqual([500, 450, 400, 350, 300, 250, 200, 150, 100, 50]);
  });

  // A close after the handshake, before HTTP/2: a front without its backend yet, or one refusing our certificate
  // without an alert. Not evidence enough to fail early; named at the deadline.
  const closedBeforeH2 = (): TlsProbeError =>
    new TlsProbeError(
      'closed',
      'the builder at 10.0.0.1:1234 completed the TLS handshake, then closed the connection before answering HTTP/2 (no SETTINGS frame): a TLS front that refuses our client certificate closes like this, without an alert. Check that the builder trusts the CA that signed client_cert from the details'
    );

  test('closed before HTTP/2, then the HTTP/2 answer → ready (the front got its backend)', async () => {
    const h = harness(
      [readyDetails(HOST)],
      [closedBeforeH2(), closedBeforeH2(), closedBeforeH2(), closedBeforeH2(), 'ok']
    );
    await expect(h.run()).resolves.toMatchObject({id: 'b1', detailsRequests: 1});
    expect(h.probe.calls).toHaveLength(5);
    expect(h.clock.sleeps).toEqual([50, 50, 50, 50]);
  });

  test('closed before HTTP/2 until the deadline → BuilderTimeoutError naming the client certificate, never a failure', async () => {
    const h = harness([readyDetails(HOST)], [closedBeforeH2()]);
    const e = await failure(h.run({deadline: 500}));
    expect(e).toBeInstanceOf(BuilderTimeoutError);
    expect(e.message).toBe(`Builder b1 was not ready in time: ${closedBeforeH2().message}`);
    // Polled at probeIntervalMs to the deadline, far past the three rejections that fail a builder.
    expect(h.probe.calls).toHaveLength(10);
    expect(h.clock.now()).toBe(500);
  });

  test('a last probe cut short by the deadline does not replace the reason an earlier probe gave', async () => {
    const cutShort = (opts: {timeoutMs: number}): void => {
      throw new TlsProbeError(
        'timeout',
        `the builder at 10.0.0.1:1234 never completed a TLS handshake within ${opts.timeoutMs} ms (it accepted the connection)`
      );
    };
    const h = harness([readyDetails(HOST)], [closedBeforeH2(), closedBeforeH2(), cutShort]);
    const e = await failure(h.run({deadline: 500}));
    expect(e).toBeInstanceOf(BuilderTimeoutError);
    expect(e.message).toBe(`Builder b1 was not ready in time: ${closedBeforeH2().message}`);
    expect(h.probe.calls.length).toBeGreaterThan(2);
  });

  test('no HTTP/2 answer within the probe limit until the deadline → BuilderTimeoutError saying so', async () => {
    const noH2 = new TlsProbeError(
      'timeout',
      'the builder at 10.0.0.1:1234 completed the TLS handshake but did not answer HTTP/2 within 5000 ms (no SETTINGS frame after our connection preface): nothing behind its TLS front speaks gRPC yet'
    );
    const h = harness([readyDetails(HOST)], [noH2]);
    const e = await failure(h.run({deadline: 500}));
    expect(e).toBeInstanceOf(BuilderTimeoutError);
    expect(e.message).toBe(`Builder b1 was not ready in time: ${noH2.message}`);
  });

  test('client_key lines are registered as secrets before the probe runs (and before the builder is ready)', async () => {
    const h = harness([readyDetails(HOST, {status: 'pending'}), readyDetails(HOST)]);
    const secretsAtDetails: string[][] = [];
    const secretsAtProbe: string[][] = [];
    const api = h.api;
    const original = api.getBuilderDetails.bind(api);
    api.getBuilderDetails = async (id, opts) => {
      secretsAtDetails.push([...h.logger.secrets]);
      return original(id, opts);
    };
    h.probe.onCall = () => secretsAtProbe.push([...h.logger.secrets]);
    await h.run();
    expect(secretsAtDetails[0]).toEqual([]);
    // After the first (pending) answer, the key is already masked.
    expect(secretsAtDetails[1]).toEqual(expect.arrayContaining([TEST_PEMS.key.trim(), ...TEST_KEY_SECRET_LINES]));
    expect(secretsAtProbe[0]).toEqual(expect.arrayContaining([TEST_PEMS.key.trim(), ...TEST_KEY_SECRET_LINES]));
    expect(h.logger.secrets).not.toContain('-----BEGIN PRIVATE KEY-----');
    expect(h.logger.secrets).not.toContain(TEST_PEMS.cert.trim());
  });

  test('the key never appears in a log line', async () => {
    const h = harness(
      [httpError('get builder details', 503), readyDetails(HOST, {status: 'pending'}), readyDetails(HOST)],
      [unreachable(), rejected(), 'ok']
    );
    await h.run();
    for (const line of TEST_KEY_SECRET_LINES) expect(h.logger.text).not.toContain(line);
  });
});

describe('waitForBuilderReady: cancellation', () => {
  test('an aborted signal rejects with its reason before any request', async () => {
    const h = harness([readyDetails(HOST)]);
    const reason = new CancelledError('Cancelled by SIGINT');
    const e = await failure(h.run({signal: AbortSignal.abort(reason)}));
    expect(e).toBe(reason);
    expect(h.api.detailsCalls).toEqual([]);
  });

  test('abort while sleeping between polls → rejects with the reason, no more requests', async () => {
    const h = harness([pendingDetails()]);
    const controller = new AbortController();
    const reason = new CancelledError('Cancelled by SIGTERM');
    h.clock.onSleep = (_ms, i) => {
      if (i === 1) controller.abort(reason);
    };
    const e = await failure(h.run({signal: controller.signal}));
    expect(e).toBe(reason);
    expect(h.api.detailsCount('b1')).toBe(2);
  });

  test('abort during a details request → rejects with the reason, not retried', async () => {
    const controller = new AbortController();
    const reason = new CancelledError('Cancelled by SIGINT');
    const h = harness([
      ({signal}) => {
        controller.abort(reason);
        expect(signal?.aborted).toBe(true);
        throw new ApiError({call: 'get builder details', code: 'ABORT_ERR'});
      },
      readyDetails(HOST)
    ]);
    const e = await failure(h.run({signal: controller.signal}));
    expect(e).toBe(reason);
    expect(h.api.detailsCount('b1')).toBe(1);
    expect(h.clock.sleeps).toEqual([]);
  });

  test('abort during the probe → rejects with the reason', async () => {
    const controller = new AbortController();
    const reason = new CancelledError('Cancelled by SIGINT');
    const h = harness(
      [readyDetails(HOST)],
      [
        () => {
          controller.abort(reason);
          throw unreachable();
        }
      ]
    );
    const e = await failure(h.run({signal: controller.signal}));
    expect(e).toBe(reason);
    expect(h.probe.calls).toHaveLength(1);
    expect(h.probe.calls[0]?.signal).toBe(controller.signal);
  });
});
