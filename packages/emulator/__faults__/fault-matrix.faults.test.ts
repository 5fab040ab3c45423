// The fault matrix: each scenario on the bundled actions it applies to (kit/actions.ts), each run on its own
// emulator, main → post through the runner harness. runScenario() checks what every scenario shares (exit
// code, error text, warnings, ledger after post, secret scan, certificate folder, post never failing); the
// table says what differs.
//
// What runs here is what only shows end to end: each way a job ends (a failure in each phase, a signal in each
// phase, a teardown refused), with teardown on every path, no secret in any output and post finding main's state.
// The variants of one path (each status's hint, each retry rule, each malformed answer, each teardown round) are
// core's unit tests (builders-client, retry-policy, readiness, teardown, run-hook ...), named in each group.
//
// Which actions run a scenario: build-push and bake take the same core path up to the build (local checks,
// assignment, readiness, buildx setup, teardown in main, post); configure takes it too but builds nothing and
// tears down in post. A fault main fails on (or absorbs) before the build takes that path the same way on every
// action, main tearing down what it assigned: it runs once, on configure, build-push and bake in turn (oneEach,
// kit/actions.ts), so every bundle meets every kind of fault. Where the actions part ways (the teardown: post's
// for configure, main's for a build action; the post step) a fault runs on configure and ONE build action
// (onePerKind). Both build actions run what each does its own way: the build failing and a signal during the
// build (each names its own command). The happy path runs on all three.
import {afterAll, beforeAll, describe, expect, test} from '@jest/globals';
import {Env} from '@remote-builder-actions/core';
import type {Emulator} from '@remote-builder-actions/emulator';
import {
  ACTIONS,
  BAKE,
  BUILD_PUSH,
  CONFIGURE,
  oneEach,
  onePerKind,
  requireBundles,
  type ActionUnderTest
} from './kit/actions.js';
import {API_KEY} from './kit/job.js';
import {cases, runScenario, type Scenario, type ScenarioContext} from './kit/scenario.js';
import {reportScan} from './kit/secret-scan.js';

const requests = (emu: Emulator, route: string) => emu.requests().filter(r => r.route === route);
const builds = (a: ActionUnderTest): boolean => a.builds;
/**
 * Output lines that prove main has reached a phase, for signals. The local checks end before the assignment
 * starts, so the assignment's group line proves them done; the readiness group line proves the assignment
 * answered; the debug line of `buildx inspect --bootstrap` proves the builder is being booted.
 */
const ASSIGNING = /::group::Assigning a builder from profile/;
const WAITING = /::group::Waiting for 1 builder to be ready/;
const BOOTSTRAPPING = /NodeExec\.run: docker buildx inspect --bootstrap/;
const BUILDING = /#0 building with/;
const REMOVING = /::group::Removing/;
/** main's error when a signal comes in `phase`: exactly that phase's words. */
const cancelled = (signal: string, phase: string): RegExp => new RegExp(`Cancelled by ${signal} ${phase}`);
/** main tore the builders down itself (not left to post). */
const toreDownInMain = ({job}: ScenarioContext): void => expect(job.main?.stdout).toMatch(/Builder bld_\w+ torn down/);

/**
 * Faults on the assignment: status codes, resets, slowness. Nothing reaches the ledger unless said. The
 * assignment is core's, the same for every action: one action each. Each status's hint (a 404's api-url, a
 * redirect not followed, 429s until the attempts run out) is builders-client.test.ts's; a request time limit that
 * does not cut the assignment is builder-api-client.test.ts's; an answer lost to a reset (before or after the
 * service processed the request) is builders-client.test.ts's and request-engine.test.ts's, and takes the 500's
 * path end to end (failed, warned that a builder may be billed).
 */
const ASSIGN: Scenario[] = oneEach<Scenario>([
  {
    // One 5xx: core's unit tests (builders-client, builder-lifecycle) hold each status's hint and that none but
    // 503 is retried; a 401's wording (api-key) is PROFILE_LIST's.
    id: 'assign 500 after the service assigned (processed, then failed): not retried, warned, and the error says a builder may be billed',
    setup: emu => emu.addFault({route: 'assign', status: 500, processFirst: true, times: 1}),
    expect: {
      exit: 1,
      error: /HTTP 500.*a builder may have been assigned and billed anyway: check the web UI and tear it down/,
      warnings: [/failed with HTTP 500, which does not say whether a builder was assigned first/],
      assigned: 1,
      billed: 'unknowable',
      also: ({emu}) => expect(requests(emu, 'assign')).toHaveLength(1)
    }
  },
  ...(
    [
      // One shape: builders-client.test.ts quotes each (an empty id, null, a number).
      ['null', [null], /builder_instances\[1\] is null/]
    ] as const
  ).map(([what, entries, quoted]): Scenario => ({
    id: `assign answer with a bad entry (${what}) next to a good one: the good builder is torn down, the bad entry quoted`,
    setup: emu => emu.addFault({route: 'assign', appendEntries: [...entries], times: 1}),
    expect: {
      exit: 1,
      error: new RegExp(
        `Failed to assign builder: HTTP 20\\d \\(unexpected response: ${quoted.source}: not a builder with a non-empty string id; the well-formed entries \\(bld_\\w+\\) were assigned and are billed until torn down\\)`
      ),
      // runScenario checks the ledger: the real builder is assigned, then torn down (nothing left billed).
      assigned: 1,
      also: ({emu, job}) => {
        expect(job.state?.builderIds).toHaveLength(1);
        expect(requests(emu, 'teardown').map(r => r.status)).toEqual([200]);
      }
    }
  })),
  {
    // Both retried statuses in one run (retry-policy.test and builders-client.test hold the rules: Retry-After
    // honoured and capped, the attempts bounded, 429 and 503 only).
    id: 'assign 429 with Retry-After: 1, then 503: each retried (the second the service asked for waited), then built',
    setup: emu => {
      emu.addFault({route: 'assign', status: 429, headers: {'Retry-After': '1'}, times: 1});
      emu.addFault({route: 'assign', status: 503, times: 1});
    },
    expect: {
      exit: 0,
      assigned: 1,
      also: ({emu}) => {
        const assigns = requests(emu, 'assign');
        expect(assigns.map(r => r.status)).toEqual([429, 503, 200]);
        expect((assigns[1]?.at ?? 0) - (assigns[0]?.at ?? 0)).toBeGreaterThanOrEqual(950);
      }
    }
  },
  {
    id: 'assign answer slower than the whole timeout: the late answer is waited for and torn down',
    // Late by 500 ms: the grace for a late answer (5 s) has room for a loaded machine.
    setup: emu => emu.addFault({route: 'assign', delayMs: 1500, times: 1}),
    job: {inputs: {timeout: '1000'}},
    expect: {
      exit: 1,
      error:
        /The service did not answer the assignment from profile "p" in time \(its late answer, bld_\w+, is torn down\).*raise the "timeout" input/,
      assigned: 1
    }
  },
  {
    id: 'assign never answered: gives up at the timeout plus the grace, warning that a builder may be billed',
    setup: emu => emu.addFault({route: 'assign', action: 'hang'}),
    job: {inputs: {timeout: '1000'}},
    expect: {
      exit: 1,
      error: /The service did not answer the assignment from profile "p" in time\. Timed out after 1000 ms/,
      warnings: [/did not answer within \d+ ms; if the service processed it, a builder may still be billed/],
      assigned: 0
    }
  }
]);

/**
 * Faults while waiting for the builder. Readiness is core's, the same for every action, and every way it ends
 * without a ready builder takes one path end to end (main fails naming why, tears down, post finds it done): the
 * timeout input running out, once. The details answers (404s within and past the grace, 5xx, a hanging or slow
 * request, missing or malformed PEMs, a failed builder) and TLS probes (refused, another CA, nothing listening)
 * are readiness.test.ts, assignment-deadline.test.ts and tls-probe.test.ts in-process; a failed builder's
 * teardown end to end is PROFILE_LIST's, a refused certificate's tls-fronts'.
 */
const READINESS: Scenario[] = [
  {
    id: 'builder never ready: times out naming the timeout input, torn down by main (post finds it done)',
    appliesTo: a => a === BUILD_PUSH,
    setup: emu => emu.addFault({route: 'builder', behaviour: 'never-ready'}),
    job: {inputs: {timeout: '5000'}},
    expect: {
      exit: 1,
      error:
        /was not ready in time: details lack host, ca, client_cert, client_key \(status "pending"\).*raise the "timeout" input/,
      assigned: 1,
      also: ({job}) => expect(job.posts[0]?.stdout).toMatch(/already torn down by main/)
    }
  }
];

/**
 * Faults on the teardown. The teardown is core's: configure (in post) and one build action (in main). Its rounds
 * (retried 5xx, 404 as already gone, a Retry-After cut to the budget) are teardown.test.ts's, and the concurrency
 * suite's refused teardowns are retried end to end; here the budget running out in both steps. The job's
 * teardown budget is the kit's (kit/job.ts FAULT_BUDGETS) unless a scenario is about the budget itself.
 */
const TEARDOWN: Scenario[] = onePerKind<Scenario>([
  {
    id: 'teardown refused every time: the budget (2 s here, 15 s in main and 30 s in post by default) runs out in main and in post, each warns naming the builder, which stays billed',
    setup: emu => emu.addFault({route: 'teardown', status: 500}),
    job: {env: {[Env.TeardownTimeoutMs]: '2000'}},
    expect: a => ({
      exit: 0,
      assigned: 1,
      billed: 'named',
      warnings: a.tearsDownInMain
        ? [/bld_\w+ could not be torn down and may still be billed.*The post step will try again/]
        : [/bld_\w+ could not be torn down and MAY STILL BE BILLED/],
      // Each step that tried gave up at its budget, not at the first refusal: at least two rounds each.
      also: ({emu}) => expect(requests(emu, 'teardown').length).toBeGreaterThanOrEqual(a.tearsDownInMain ? 4 : 2)
    })
  }
]);

/**
 * docker buildx failing. Setting up buildx is core's: one of its commands failing on one action (each command's
 * error is buildx.test.ts's and builder-lifecycle.test.ts's). The build is each build action's own (its command
 * and error): both.
 */
const DOCKER: Scenario[] = oneEach<Scenario>([
  {
    id: 'buildx create failing: the step is named, the builder torn down in main, no other profile tried',
    job: {env: {FAKE_DOCKER_FAIL: 'create'}, inputs: {'profile-name': 'p, p2'}},
    expect: {
      exit: 1,
      error: /Failed to create buildx builder "remote-builder-\w+" \(node bld_\w+\): ERROR: fake docker: create failed/,
      assigned: 1,
      // The early create (a placeholder node, right after the assignment) fails nothing; the ready builder's does.
      also: ({job}) =>
        expect(job.dockerCalls.filter(c => c[1] === 'create').map(c => c.at(-1))).toEqual([
          'tcp://127.0.0.1:1',
          expect.stringMatching(/^tcp:\/\/127\.0\.0\.1:\d{2,}$/)
        ])
    }
  },
  {
    id: 'the build failing: docker’s last line, builders torn down in main',
    appliesTo: builds,
    job: a => ({env: {FAKE_DOCKER_FAIL: a.buildCommand ?? 'build'}}),
    expect: a => ({exit: 1, error: a.buildFailure ?? /failed/, assigned: 1, also: toreDownInMain})
  }
]);

/**
 * SIGINT/SIGTERM, as the runner cancels (SIGINT, SIGTERM 7.5 s later, then the tree killed). Each signal is sent
 * only after a line that proves main reached the phase, and the error must name exactly that phase. Both signals
 * take one handler (run-hook.test.ts sends each): each phase is cancelled once, the signals and the actions in
 * turn, so every bundle meets both. Before the build every action is cancelled the same way (main tears down):
 * one action per phase. During post the actions differ (configure's teardown is post's own; a build action's is
 * left to post only when main is killed outright): configure with SIGINT, bake with SIGTERM. During the build
 * each build action stops its own command: build-push with SIGINT, bake with SIGTERM.
 */
const SIGNAL_OF = (i: number): 'SIGINT' | 'SIGTERM' => (i % 2 === 0 ? 'SIGINT' : 'SIGTERM');
const inReadiness = (signal: string) => ({
  inputs: {'profile-name': 'slow'},
  mainSignals: [{signal, whenOutputMatches: WAITING}],
  cancelLikeRunner: true
});
const BEFORE_THE_BUILD = (signal: 'SIGINT' | 'SIGTERM', phase: number): Scenario =>
  [
    {
      id: `${signal} while the assignment is in flight: its answer is awaited and that builder torn down`,
      // The assignment's group starts once the local checks are done; 800 ms later the request (answered after
      // 2 s) is in flight.
      setup: (emu: Emulator) => emu.addFault({route: 'assign', delayMs: 2000, processFirst: true, times: 1}),
      job: {mainSignals: [{signal, whenOutputMatches: ASSIGNING, afterMs: 800}], cancelLikeRunner: true},
      expect: {
        exit: 1 as const,
        error: cancelled(signal, 'while assigning a builder from profile "p"; torn down: bld_\\w+'),
        assigned: 1
      }
    },
    {
      id: `${signal} during readiness while the teardown is refused: the error names the builder that may still be billed`,
      setup: (emu: Emulator) => emu.addFault({route: 'teardown', status: 401}),
      job: inReadiness(signal),
      expect: {
        exit: 1 as const,
        error: cancelled(
          signal,
          'while waiting for builders to be ready; NOT torn down, may still be billed: bld_\\w+ \\(Failed to tear down builder: HTTP 401'
        ),
        assigned: 1,
        billed: 'named' as const
      }
    },
    {
      id: `${signal} during readiness: torn down before main exits`,
      job: inReadiness(signal),
      expect: {
        exit: 1 as const,
        error: cancelled(signal, 'while waiting for builders to be ready; torn down: bld_\\w+'),
        assigned: 1,
        also: toreDownInMain
      }
    },
    {
      // A killed `inspect --bootstrap` is one of the buildx setup's commands failing: the phase is the setup.
      id: `${signal} while buildx boots the builder: the command is killed, torn down`,
      buildkit: {api: 'no-info' as const},
      job: {
        env: {FAKE_DOCKER_HANG: 'bootstrap'},
        mainSignals: [{signal, whenOutputMatches: BOOTSTRAPPING, afterMs: 300}],
        cancelLikeRunner: true
      },
      expect: {
        exit: 1 as const,
        error: cancelled(signal, 'while setting up the buildx builder; torn down: bld_\\w+'),
        assigned: 1
      }
    }
  ][phase] as Scenario;

/** A signal during post; on a build action main is killed mid-build first (the runner's SIGKILL), leaving the teardown to post. */
const duringPost = (signal: 'SIGINT' | 'SIGTERM', build: ActionUnderTest): Scenario => ({
  id: `${signal} during post: post finishes the teardown first${build === CONFIGURE ? '' : ' (main killed outright mid-build: post tears down what main could not)'}`,
  appliesTo: a => a === build,
  setup: emu => emu.addFault({route: 'teardown', delayMs: 1200}),
  job: {
    ...(build.tearsDownInMain
      ? {env: {FAKE_DOCKER_BUILD_MS: '3000'}, mainSignals: [{signal: 'SIGKILL', whenOutputMatches: BUILDING}]}
      : {}),
    postSignals: [{signal, whenOutputMatches: REMOVING, afterMs: 200}]
  },
  expect: {
    exit: build.tearsDownInMain ? 'killed' : 0,
    assigned: 1,
    also: ({job}) => {
      expect(job.posts[0]?.stdout).toContain(`Received ${signal}: finishing the cleanup first so nothing stays billed`);
      expect(job.posts[0]?.stdout).toMatch(/Builder bld_\w+ torn down/);
    }
  }
});

const duringTheBuild = (signal: 'SIGINT' | 'SIGTERM', build: ActionUnderTest): Scenario => ({
  id: `${signal} during the build: the build is stopped, torn down before main exits`,
  appliesTo: a => a === build,
  job: {
    env: {FAKE_DOCKER_HANG: build.buildCommand ?? 'build'},
    mainSignals: [{signal, whenOutputMatches: BUILDING}],
    cancelLikeRunner: true
  },
  expect: {
    exit: 1,
    error: build.cancelledInBuild?.(signal) ?? new RegExp(`Cancelled by ${signal}`),
    assigned: 1,
    also: toreDownInMain
  }
});

const SIGNALS: Scenario[] = [
  ...[0, 1, 2, 3].map(phase => {
    const s = BEFORE_THE_BUILD(SIGNAL_OF(phase), phase);
    return {...s, appliesTo: (a: ActionUnderTest) => a === ACTIONS[phase % 3]};
  }),
  duringPost('SIGINT', CONFIGURE),
  duringPost('SIGTERM', BAKE),
  duringTheBuild('SIGINT', BUILD_PUSH),
  duringTheBuild('SIGTERM', BAKE)
];

/**
 * A list of profiles: core's, one action each. Moving on after a profile whose builder failed, and not after a
 * refused key (which is also the action's wording of a 401: api-key); which errors move on is
 * builder-lifecycle.test.ts's and assignment-deadline.test.ts's.
 */
const PROFILE_LIST: Scenario[] = oneEach<Scenario>([
  {
    id: 'profiles "p, p2" with p’s builder failing: its builder torn down, p2 used',
    setup: emu => emu.addFault({route: 'builder', behaviour: 'fail', profile: 'p'}),
    job: {inputs: {'profile-name': 'p, p2'}},
    expect: {
      exit: 0,
      warnings: [/Profile "p" gave no ready builder \(Builder bld_\w+ failed to start.*\); trying "p2"/],
      assigned: 2
    }
  },
  {
    id: 'profiles "p, p2" with p answering 401: the key is refused, p2 is not tried',
    setup: emu => emu.addFault({route: 'assign', status: 401, profile: 'p'}),
    job: {inputs: {'profile-name': 'p, p2'}},
    expect: {
      exit: 1,
      error: /Failed to assign builder: HTTP 401.*check the api-key: it is missing, wrong or revoked/,
      noWarnings: true,
      assigned: 0,
      also: ({emu}) => expect(requests(emu, 'assign').map(r => r.profile)).toEqual(['p'])
    }
  }
]);

/** Controls: the happy path under the same checks, on every action. */
const BASELINE: Scenario[] = [
  {
    id: 'no fault: built or configured, torn down, no warning (configure: post run twice)',
    // build-push with push and load together on buildx 0.13.1 (the fake docker's): accepted, two exporters (the
    // counterpart of buildx-version.faults.test.ts's refusal on 0.12). configure's post runs twice: the first
    // tears down, the second finds nothing billed and warns about nothing (a build action's posts both find
    // main's teardown done, as never-ready shows; a post with no state follows every bad-input run).
    job: a => (a.checksPushAndLoad ? {inputs: {push: 'true', load: 'true'}} : a === CONFIGURE ? {posts: 2} : {}),
    expect: {
      exit: 0,
      noWarnings: true,
      assigned: 1,
      also: ({action, job}) => {
        // One node: its CA, certificate and key, left by main while configure's builder lives on; build-push
        // and bake tear theirs down in main, and its key goes with it.
        expect(job.certs.files).toBe(action.name === 'configure' ? 3 : 0);
        expect(job.main?.masks).toContain(API_KEY);
        if (action.checksPushAndLoad) {
          const build = job.dockerCalls.find(argv => argv[1] === 'build') ?? [];
          expect(build).toEqual(expect.arrayContaining(['--push', '--load']));
        }
      }
    }
  }
];

export const SCENARIOS: Scenario[] = [
  ...BASELINE,
  ...ASSIGN,
  ...READINESS,
  ...TEARDOWN,
  ...DOCKER,
  ...SIGNALS,
  ...PROFILE_LIST
];

const CASES = cases(SCENARIOS, ACTIONS);

beforeAll(() => requireBundles());
afterAll(() => {
  console.log(
    `fault matrix: ${SCENARIOS.length} scenarios, ${CASES.length} runs over ${ACTIONS.map(a => a.name).join(', ')}`
  );
  reportScan('fault-matrix');
});

describe('fault matrix', () => {
  test.concurrent.each(CASES)('%s: %s', async (_name, _id, scenario, action) => {
    await runScenario(scenario, action);
  });
});
