// TLS fronts: the bundled actions (kit/actions.ts) against builders behind a TLS front the emulator offers.
// Many fronts close a connection that sends nothing after the handshake (load balancers, TLS terminators,
// sidecars); readiness sends HTTP/2's preface at once and must accept those, call a builder ready only once it
// answers HTTP/2, and say whose certificate was refused. What each front does to a probe is tls-probe.test.ts's
// (every front of the emulator: keep-open, close-idle, drop-client-cert, close- and reset-after-handshake,
// no-http2, refuse-client-cert, never-answer, a server certificate for another host or CA), and how readiness
// words each outcome readiness.test.ts's, both in-process. Here the three ways a job meets a front: ready
// behind it (a profile's front, on a tcp:// host), refused within seconds, not ready until the timeout. The
// readiness probe is core's, the same for every action: one way each, configure, build-push and bake in turn.
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

const PROFILE_FRONT: Scenario = {
  id: "a profile's front (close-idle, 50 ms, tcp:// host): ready, torn down",
  profiles: [
    ...PROFILES.filter(p => p.name !== 'p'),
    {name: 'p', readyDelayMs: 150, hostFormat: 'tcp', front: 'close-idle', frontIdleMs: 50}
  ],
  expect: {exit: 0, noWarnings: true, assigned: 1}
};

/** A front that refuses our client certificate with an alert: the job fails within seconds, naming it. */
const REFUSED: Scenario = {
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
};

/**
 * The timeout of scenarios whose message must name what the TLS checks saw. Readiness keeps a probe's reason
 * when a later probe is only cut short by the deadline, so at least one probe must run whole before it: the
 * assignment, the details and the first proof come first, and on a loaded 2-core machine (8 scenarios of this
 * file at once, beside the unit tests) 3 s and then 5 s left none (the one probe was the one the deadline cut:
 * "never completed a TLS handshake within 189 ms"). These scenarios wait out the timeout whatever it is, on
 * timers, not CPU: a long one costs this file's wall time only.
 */
const BUSY_MACHINE_TIMEOUT_MS = 15_000;

/**
 * A front that closes every connection after the handshake, before any HTTP/2 answer, as a Node TLS server that
 * refuses our client certificate without an alert does (closing or resetting alike: tls-probe.test.ts); buildx
 * could not build through it. Not ready until the timeout; the error names our client certificate as the likely
 * cause.
 */
const CLOSED_BEFORE_H2: Scenario = {
  id: 'drop-client-cert: not ready until the timeout, the error names our client certificate, torn down',
  setup: front('drop-client-cert'),
  job: {inputs: {timeout: String(BUSY_MACHINE_TIMEOUT_MS)}},
  expect: {
    exit: 1,
    error:
      /was not ready in time: the builder at 127\.0\.0\.1:\d+ completed the TLS handshake, then (closed|reset) the connection.* before answering HTTP\/2 \(no SETTINGS frame\): a TLS front that refuses our client certificate/,
    assigned: 1,
    also: ({job}) => expect(job.main?.durationMs).toBeGreaterThanOrEqual(BUSY_MACHINE_TIMEOUT_MS)
  }
};

export const SCENARIOS: Scenario[] = oneEach<Scenario>([PROFILE_FRONT, REFUSED, CLOSED_BEFORE_H2]);

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
