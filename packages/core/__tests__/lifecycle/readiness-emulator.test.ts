// The progress line through the emulator over loopback HTTP and mutual TLS, with a builder that takes 25 s to be
// ready: the emulator and readiness share one ManualClock (the emulator's), moved by the test only while
// readiness sleeps, so 25 s pass in no wall time and the lines do not depend on the machine's speed.
import {afterAll, beforeAll, expect, test} from '@jest/globals';
import {Emulator, ManualClock} from '@remote-builder-actions/emulator';
import {abortReason, type Clock} from '../../src/clock.js';
import {createBuilderApiClient, type ClosableBuilderApi} from '../../src/lifecycle/builder-api-client.js';
import {waitForBuilderReady} from '../../src/lifecycle/readiness.js';
import {mutualTlsProbe} from '../../src/lifecycle/tls-probe.js';
import {RecordingLogger} from '../fakes/recording-logger.js';

const KEY = 'rb_progress_key';
const READY_DELAY_MS = 25_000;

/** A core Clock over the emulator's ManualClock that reports each sleep, so the test moves time only then. */
class SharedClock implements Clock {
  #onSleep: ((ms: number) => void) | undefined;
  constructor(readonly emu: ManualClock) {}

  now(): number {
    return this.emu.now();
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    const slept = new Promise<void>((resolve, reject) => {
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
    this.#onSleep?.(ms);
    return slept;
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

let emu: Emulator;
let api: ClosableBuilderApi;
const emuClock = new ManualClock({now: 1_700_000_000_000});

beforeAll(async () => {
  emu = await Emulator.start({
    profiles: [{name: 'slow', readyDelayMs: READY_DELAY_MS}],
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

  let done = false;
  let sleep = clock.nextSleep();
  const ready = waitForBuilderReady(id, {
    api,
    clock,
    logger,
    probe: mutualTlsProbe,
    deadline: start + 60_000
  }).finally(() => (done = true));
  // Time moves only while readiness sleeps between polls, by what it asked: the requests themselves take none.
  while (!done) {
    const ms = await Promise.race([sleep, ready.then(() => undefined)]);
    if (ms === undefined) break;
    sleep = clock.nextSleep();
    emuClock.advance(ms);
  }

  const b = await ready;
  expect(b.id).toBe(id);
  expect(clock.now() - start).toBe(READY_DELAY_MS);
  expect(logger.messages('info')).toEqual([
    `Still waiting after 10 s of 60 s: builder ${id} pending`,
    `Still waiting after 20 s of 60 s: builder ${id} pending`
  ]);
  expect(stamps).toEqual([10_000, 20_000]);
  // 101 polls (every 250 ms from 0 to 25 s), two debug lines: the first status and ready.
  expect(b.detailsRequests).toBe(101);
  expect(logger.messages('debug')).toEqual([
    `waitForBuilderReady: ${id}: details lack host, ca, client_cert, client_key (status "pending")`,
    `waitForBuilderReady: ${id}: ready`
  ]);
});
