// Readiness through the emulator over loopback HTTP, mutual TLS and HTTP/2: the progress line with a builder
// that takes 25 s to be ready, and the verdict behind each TLS front. The emulator and readiness share one
// ManualClock (the emulator's), moved by the test only while readiness sleeps, so 25 s pass in no wall time
// and the lines do not depend on the machine's speed. (Each probe's own time limit is a real timer.)
import {afterAll, beforeAll, describe, expect, test} from '@jest/globals';
import {Emulator, ManualClock, type BuilderFront} from '@remote-builder-actions/emulator';
import {abortReason, timerDeadline, type Clock, type Deadline, type DeadlineOpts} from '../../src/clock.js';
import {createBuilderApiClient, type ClosableBuilderApi} from '../../src/lifecycle/builder-api-client.js';
import {
  BuilderTimeoutError,
  DEFAULT_POLL_SCHEDULE,
  waitForBuilderReady,
  type ReadyBuilder
} from '../../src/lifecycle/readiness.js';
import {grpcBuildkitInfo} from '../../src/lifecycle/buildkit-info.js';
import {mutualTlsProbe} from '../../src/lifecycle/tls-probe.js';
import {RecordingLogger} from '../fakes/recording-logger.js';

const KEY = 'rb_progress_key';
const READY_DELAY_MS = 25_000;

/** A core Clock over the emulator's ManualClock that reports each sleep (not each timer), so the test moves time only then. */
class SharedClock implements Clock {
  #onSleep: ((ms: number) => void) | undefined;
  constructor(readonly emu: ManualClock) {}

  now(): number {
    return this.emu.now();
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    const slept = this.timer(ms, signal);
    this.#onSleep?.(ms);
    return slept;
  }

  deadline(ms: number | undefined, opts?: DeadlineOpts): Deadline {
    return timerDeadline((m, s) => this.timer(m, s), ms, opts);
  }

  /** A time limit on the emulator's clock: it ends when a sleep moves time past it, and is not reported. */
  timer(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    return new Promise<void>((resolve, reject) => {
      const timer = this.emu.setTimer(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = (): void => {
        timer.cancel();
        reject(abortReason(signal as AbortSignal));
      };
      signal?.addEventListener('abort', onAbort, {once: true});
    });
  }

  /** The ms of the next sleep, once readiness asks for it. */
  nextSleep(): Promise<number> {
    return new Promise(resolve => {
      this.#onSleep = ms => {
        this.#onSleep = undefined;
        resolve(ms);
      };
    });
  }
}

/**
 * Runs `wait` (a readiness wait on `clock`) and moves the emulator's clock by each sleep it asks for, until it
 * settles: time moves only while readiness sleeps, by what it asked; the requests themselves take none.
 * Resolves its outcome (an error too) and the sleeps, in order.
 */
async function drive<T>(clock: SharedClock, wait: () => Promise<T>): Promise<{outcome: T | Error; sleeps: number[]}> {
  const sleeps: number[] = [];
  let sleep = clock.nextSleep();
  const settled = wait().then(
    v => ({outcome: v as T | Error}),
    (e: unknown) => ({outcome: e as Error})
  );
  for (;;) {
    const next = await Promise.race([sleep, settled.then(() => undefined)]);
    if (next === undefined) return {...(await settled), sleeps};
    sleeps.push(next);
    sleep = clock.nextSleep();
    emuClock.advance(next);
  }
}

const FRONTS: BuilderFront[] = ['keep-open', 'close-idle', 'drop-client-cert', 'no-http2'];

let emu: Emulator;
let api: ClosableBuilderApi;
const emuClock = new ManualClock({now: 1_700_000_000_000});

beforeAll(async () => {
  emu = await Emulator.start({
    profiles: [
      {name: 'slow', readyDelayMs: READY_DELAY_MS},
      ...FRONTS.map(front => ({name: front, readyDelayMs: 0, front, frontIdleMs: 50}))
    ],
    apiKeys: [{key: KEY, scopes: ['builders']}],
    clock: emuClock
  });
  api = createBuilderApiClient({apiUrl: emu.url, token: KEY, env: {}});
});
afterAll(async () => {
  api?.close();
  await emu?.close();
});

test('a builder ready after 25 s: progress lines at 10 and 20 s naming it pending, then ready', async () => {
  const clock = new SharedClock(emuClock);
  const logger = new RecordingLogger();
  const [builder] = (await api.assignBuilder('slow')).builder_instances;
  const id = builder?.id ?? '';
  const start = clock.now();
  const stamps: number[] = [];
  const info = logger.info.bind(logger);
  logger.info = m => {
    stamps.push(clock.now() - start);
    info(m);
  };

  const {outcome} = await drive(clock, () =>
    waitForBuilderReady(id, {api, clock, logger, probe: mutualTlsProbe, deadline: start + 60_000})
  );
  const b = outcome as ReadyBuilder;
  expect(b.id).toBe(id);
  expect(clock.now() - start).toBe(READY_DELAY_MS);
  expect(logger.messages('info')).toEqual([
    `Still waiting after 10 s of 60 s: builder ${id} pending`,
    `Still waiting after 20 s of 60 s: builder ${id} pending`
  ]);
  expect(stamps).toEqual([10_000, 20_000]);
  // 71 polls (every 250 ms for the first 15 s, then every second up to 25 s), two debug lines: the first
  // status and ready.
  expect(b.detailsRequests).toBe(71);
  expect(logger.messages('debug')).toEqual([
    `waitForBuilderReady: ${id}: details lack host, ca, client_cert, client_key (status "pending")`,
    `waitForBuilderReady: ${id}: ready`
  ]);
});

/**
 * Waits for a builder of `profile`, moving the shared clock by each sleep readiness asks for. Probes are
 * `probeIntervalMs` apart and each may take up to min(5000, time left) of real time, so a probe interval of
 * at least 2 s gives every probe a limit no loaded machine comes near.
 */
async function waitOn(
  profile: string,
  deadlineMs: number,
  probeIntervalMs = 2000,
  infoProof = false
): Promise<{id: string; outcome: ReadyBuilder | Error; logger: RecordingLogger; elapsedMs: number; probes: number}> {
  let probes = 0;
  const clock = new SharedClock(emuClock);
  const logger = new RecordingLogger();
  const [builder] = (await api.assignBuilder(profile)).builder_instances;
  const id = builder?.id ?? '';
  const start = clock.now();
  const {outcome} = await drive(clock, () =>
    waitForBuilderReady(id, {
      api,
      clock,
      logger,
      probe: o => (probes++, mutualTlsProbe(o)),
      deadline: start + deadlineMs,
      schedule: {...DEFAULT_POLL_SCHEDULE, probeIntervalMs},
      // As the lifecycle does: the Control/Info call made when the details are complete is the first proof.
      ...(infoProof && {
        onComplete: (b: ReadyBuilder) =>
          grpcBuildkitInfo({...b.endpoint, pems: b.pems, timeoutMs: 2000}).then(f => f.proved === true)
      })
    })
  );
  return {id, outcome, logger, elapsedMs: clock.now() - start, probes};
}

test('rate-limited: two 429s with Retry-After over real HTTP are waited out, then the builder is polled at a slower pace', async () => {
  const [builder] = (await api.assignBuilder('slow')).builder_instances;
  const id = builder?.id ?? '';
  const fault = emu.addFault({route: 'details', builderId: id, status: 429, headers: {'Retry-After': '3'}, times: 2});
  try {
    const clock = new SharedClock(emuClock);
    const start = clock.now();
    const {outcome, sleeps} = await drive(clock, () =>
      waitForBuilderReady(id, {
        api,
        clock,
        logger: new RecordingLogger(),
        probe: mutualTlsProbe,
        deadline: start + 60_000
      })
    );
    expect(outcome).toMatchObject({id});
    // 3 s each time the service asked; each 429 doubled the 250 ms period (500, then 1000 ms), and 1000 ms
    // stays for the rest of the wait.
    expect(sleeps.slice(0, 3)).toEqual([3000, 3000, 1000]);
    expect(new Set(sleeps.slice(2))).toEqual(new Set([1000]));
  } finally {
    emu.removeFault(fault);
  }
});

describe('readiness behind each TLS front of the emulator', () => {
  test('keep-open (a bare BuildKit answering HTTP/2) → ready at the first probe', async () => {
    const {id, outcome, elapsedMs} = await waitOn('keep-open', 10_000);
    expect(outcome).toMatchObject({id});
    expect(elapsedMs).toBe(0);
  });

  test('keep-open, with the Control/Info call as proof → ready without a TLS probe', async () => {
    const {id, outcome, logger, probes} = await waitOn('keep-open', 10_000, 2000, true);
    expect(outcome).toMatchObject({id});
    expect(probes).toBe(0);
    expect(logger.messages('debug')).toEqual([
      `waitForBuilderReady: ${id}: ready (its BuildKit answered over mutual TLS)`
    ]);
  });

  test('drop-client-cert, with the Control/Info call as proof → no proof; the probes find why, as without it', async () => {
    const {id, outcome, elapsedMs, probes} = await waitOn('drop-client-cert', 6000, 2000, true);
    expect(outcome).toBeInstanceOf(BuilderTimeoutError);
    expect((outcome as Error).message).toMatch(
      new RegExp(
        `^Builder ${id} was not ready in time: the builder at 127\\.0\\.0\\.1:\\d+ completed the TLS handshake, then`
      )
    );
    expect(elapsedMs).toBe(6000);
    expect(probes).toBe(3);
  });

  test('close-idle (a load balancer closing silent connections) → ready: the preface keeps the connection', async () => {
    const {id, outcome} = await waitOn('close-idle', 10_000);
    expect(outcome).toMatchObject({id});
  });

  test('drop-client-cert (refuses our certificate by closing, no alert) → not ready until the deadline, then an error naming the client certificate', async () => {
    const {id, outcome, logger, elapsedMs, probes} = await waitOn('drop-client-cert', 6000);
    expect(outcome).toBeInstanceOf(BuilderTimeoutError);
    expect((outcome as Error).message).toMatch(
      new RegExp(
        `^Builder ${id} was not ready in time: the builder at 127\\.0\\.0\\.1:\\d+ completed the TLS handshake, then (closed|reset) the connection.* before answering HTTP/2 \\(no SETTINGS frame\\): a TLS front that refuses our client certificate closes like this, without an alert\\. Check that the builder trusts the CA that signed client_cert from the details`
      )
    );
    // Polled (at 0, 2, 4 s) until the deadline, not failed at the first close.
    expect(elapsedMs).toBe(6000);
    expect(probes).toBe(3);
    expect(logger.messages('debug')).toEqual([
      expect.stringMatching(
        `^waitForBuilderReady: ${id}: the builder at 127\\.0\\.0\\.1:\\d+ completed the TLS handshake, then`
      )
    ]);
  });

  test('no-http2 (TLS completes, nothing behind answers) → not ready until the deadline, then an error saying nothing speaks HTTP/2', async () => {
    // One probe, whose real time limit (2 s) runs out: nothing answers HTTP/2.
    const {id, outcome, elapsedMs, probes} = await waitOn('no-http2', 2000, 2000);
    expect(outcome).toBeInstanceOf(BuilderTimeoutError);
    expect((outcome as Error).message).toMatch(
      new RegExp(
        `^Builder ${id} was not ready in time: the builder at 127\\.0\\.0\\.1:\\d+ completed the TLS handshake but did not answer HTTP/2 within \\d+ ms \\(no SETTINGS frame after our connection preface\\): nothing behind its TLS front speaks gRPC yet$`
      )
    );
    expect(elapsedMs).toBe(2000);
    expect(probes).toBe(1);
  });
});
