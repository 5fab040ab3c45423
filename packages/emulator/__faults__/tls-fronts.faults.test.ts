// TLS fronts: the bundled actions (kit/actions.ts) against builders behind each TLS front the emulator
// offers. Many fronts close a connection that sends nothing after the handshake (load balancers, TLS
// terminators, sidecars); readiness sends HTTP/2's preface at once and must accept those, call a builder ready
// only once it answers HTTP/2, and say whose certificate was refused. The readiness probe is core's, the same
// for every action: each front on one action, configure, build-push and bake in turn (oneEach).
import {afterAll, beforeAll, describe, expect, test} from '@jest/globals';
import type {BuilderBehaviour, Emulator} from '@remote-builder-actions/emulator';
import {ACTIONS, oneEach, requireBundles} from './kit/actions.js';
import {PROFILES} from './kit/job.js';
import {cases, runScenario, type Scenario, type ScenarioContext} from './kit/scenario.js';
import {reportScan} from './kit/secret-scan.js';

/** Long enough that a failure "within seconds" cannot be mistaken for one at the timeout. */
const LONG_TIMEOUT_MS = 60_000;

/** Main ended well before its timeout input, and the builder was torn down soon after it became ready. */
function failedFast({emu, job}: ScenarioContext): void {
  expect(job.main?.durationMs).toBeLessThan(LONG_TIMEOUT_MS / 2);
  const [entry] = emu.ledger();
  expect(entry?.readyAt).toBeDefined();
  expect((entry?.terminatedAt ?? Infinity) - (entry?.readyAt ?? 0)).toBeLessThan(LONG_TIMEOUT_MS / 4);
}

const front = (behaviour: BuilderBehaviour) => (emu: Emulator) => emu.addFault({route: 'builder', behaviour});

/** Fronts that answer HTTP/2 after the handshake, and keep or close idle connections: ready. */
const ACCEPTED: Scenario[] = (
  [
    ['keep-open', 'a bare BuildKit keeps the connection open'],
    ['close-idle', 'the front closes connections idle for 200 ms, like a load balancer']
  ] as const
).map(([behaviour, what]): Scenario => ({
  id: `${behaviour}: ${what}; ready, built or configured, torn down`,
  setup: front(behaviour),
  expect: {exit: 0, noWarnings: true, assigned: 1}
}));

const PROFILE_FRONT: Scenario = {
  id: "a profile's front (close-idle, 50 ms, tcp:// host): ready, torn down",
  profiles: [
    ...PROFILES.filter(p => p.name !== 'p'),
    {name: 'p', readyDelayMs: 150, hostFormat: 'tcp', front: 'close-idle', frontIdleMs: 50}
  ],
  expect: {exit: 0, noWarnings: true, assigned: 1}
};

/** Fronts that refuse the TLS material: the job fails within seconds, naming whose certificate. */
const REFUSED: Scenario[] = [
  {
    id: 'refuse-client-cert: fails within seconds naming our refused client certificate, torn down',
    setup: front('refuse-client-cert'),
    job: {inputs: {timeout: String(LONG_TIMEOUT_MS)}},
    expect: {
      exit: 1,
      error:
        /Builder bld_\w+ at 127\.0\.0\.1:\d+ rejected the TLS material from its details: .*the builder refused our client certificate \(alert: unknown CA\)/,
      assigned: 1,
      also: failedFast
    }
  },
  {
    id: 'wrong-server-cert: fails within seconds naming the builder server certificate, torn down',
    setup: front('wrong-server-cert'),
    job: {inputs: {timeout: String(LONG_TIMEOUT_MS)}},
    expect: {
      exit: 1,
      error:
        /rejected the TLS material from its details: .*the builder's server certificate does not match the CA\/host from the details: Hostname\/IP does not match certificate's altnames/,
      assigned: 1,
      also: failedFast
    }
  }
];

/**
 * The timeout of scenarios whose message must name what the TLS checks saw. Readiness keeps a probe's reason
 * when a later probe is only cut short by the deadline, so at least one probe must run whole before it: the
 * assignment, the details and the first proof come first, and on a loaded 2-core machine (8 scenarios of this
 * file at once, beside the unit tests) 3 s and then 5 s left none (the one probe was the one the deadline cut:
 * "never completed a TLS handshake within 189 ms"). These scenarios wait out the timeout whatever it is, on
 * timers, not CPU: a long one costs this file's wall time only.
 */
const BUSY_MACHINE_TIMEOUT_MS = 15_000;

const NEVER_ANSWER: Scenario = {
  id: 'never-answer: fails at the timeout saying the builder never completed a TLS handshake, torn down',
  setup: front('never-answer'),
  job: {inputs: {timeout: String(BUSY_MACHINE_TIMEOUT_MS)}},
  expect: {
    exit: 1,
    // The last probe may be a short one, cut off by the deadline before its connection was accepted.
    error:
      /Builder bld_\w+ was not ready in time: the builder at 127\.0\.0\.1:\d+ never completed a TLS handshake within \d+ ms \((it accepted the connection|no connection was established)\)/,
    assigned: 1,
    also: ({job}) => expect(job.main?.durationMs).toBeGreaterThanOrEqual(BUSY_MACHINE_TIMEOUT_MS)
  }
};

/**
 * Fronts that close or reset every connection after the handshake, before any HTTP/2 answer: a Node TLS server
 * that refuses our client certificate without an alert looks exactly like this, and buildx could not build
 * through any of them. Not ready until the timeout; the error names our client certificate as the likely cause.
 */
const CLOSED_BEFORE_H2: Scenario[] = (
  ['drop-client-cert', 'close-after-handshake', 'reset-after-handshake'] as const
).map((behaviour): Scenario => ({
  id: `${behaviour}: not ready until the timeout, the error names our client certificate, torn down`,
  setup: front(behaviour),
  job: {inputs: {timeout: String(BUSY_MACHINE_TIMEOUT_MS)}},
  expect: {
    exit: 1,
    error:
      /was not ready in time: the builder at 127\.0\.0\.1:\d+ completed the TLS handshake, then (closed|reset) the connection.* before answering HTTP\/2 \(no SETTINGS frame\): a TLS front that refuses our client certificate/,
    assigned: 1,
    also: ({job}) => expect(job.main?.durationMs).toBeGreaterThanOrEqual(BUSY_MACHINE_TIMEOUT_MS)
  }
}));

const NO_HTTP2: Scenario = {
  id: 'no-http2: TLS completes but nothing answers HTTP/2; not ready until the timeout, torn down',
  setup: front('no-http2'),
  job: {inputs: {timeout: String(BUSY_MACHINE_TIMEOUT_MS)}},
  expect: {
    exit: 1,
    error: /was not ready in time: .*did not answer HTTP\/2 within \d+ ms/,
    assigned: 1,
    also: ({job}) => expect(job.main?.durationMs).toBeGreaterThanOrEqual(BUSY_MACHINE_TIMEOUT_MS)
  }
};

export const SCENARIOS: Scenario[] = oneEach<Scenario>([
  ...ACCEPTED,
  PROFILE_FRONT,
  ...REFUSED,
  ...CLOSED_BEFORE_H2,
  NO_HTTP2,
  NEVER_ANSWER
]);

const CASES = cases(SCENARIOS, ACTIONS);

beforeAll(() => requireBundles());
afterAll(() => {
  console.log(`tls fronts: ${SCENARIOS.length} scenarios, ${CASES.length} runs`);
  reportScan('tls-fronts');
});

describe('TLS fronts', () => {
  test.concurrent.each(CASES)('%s: %s', async (_name, _id, scenario, action) => {
    await runScenario(scenario, action);
  });
});
