// The fault matrix: each scenario on the bundled actions it applies to (kit/actions.ts), each run on its own
// emulator, main → post through the runner harness. runScenario() checks what every scenario shares (exit
// code, error text, warnings, ledger after post, secret scan, certificate folder, post never failing); the
// table says what differs.
//
// Which actions run a scenario: build-push and bake take the same core path up to the build (local checks,
// assignment, readiness, buildx setup, teardown in main, post); configure takes it too but builds nothing and
// tears down in post. A fault main fails on (or absorbs) before the build takes that path the same way on every
// action, main tearing down what it assigned: it runs once, on configure, build-push and bake in turn (oneEach,
// kit/actions.ts), so every bundle meets every kind of fault. Where the actions part ways (the teardown: post's
// for configure, main's for a build action; the post step) a fault runs on configure and ONE build action
// (onePerKind: build-push and bake in turn). Both build actions run what each does its own way: the build
// failing and a signal during the build (each names its own command). The happy path runs on all three. Each
// group below says why it runs where it does; core's unit tests hold the variants of one path (each status's
// hint, each malformed entry, each retry rule).
import {afterAll, beforeAll, describe, expect, test} from '@jest/globals';
import {Env} from '@remote-builder-actions/core';
import type {Emulator} from '@remote-builder-actions/emulator';
import {
  ACTIONS,
  BAKE,
  BUILD_PUSH,
  configureAnd,
  oneEach,
  onePerKind,
  requireBundles,
  type ActionUnderTest
} from './kit/actions.js';
import {API_KEY} from './kit/job.js';
import {cases, describeJob, runScenario, type Scenario, type ScenarioContext} from './kit/scenario.js';
import {reportScan} from './kit/secret-scan.js';

const body = (code: string, message: string): string => JSON.stringify({error: {code, message}});
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
 * assignment is core's, the same for every action: one action each.
 */
const ASSIGN: Scenario[] = oneEach<Scenario>([
  ...(
    [
      // One 4xx and one 5xx: core's unit tests (builders-client, builder-lifecycle) hold each status's hint,
      // that none is retried and the 5xx warning; here the action's wording of it (api-key, not token).
      [401, /Failed to assign builder: HTTP 401.*check the api-key: it is missing, wrong or revoked/],
      [502, /Failed to assign builder: HTTP 502.*the service failed; try again later/]
    ] as const
  ).map(([status, error]): Scenario => ({
    id: `assign ${status}: fails at once, not retried (the assignment is not idempotent), nothing billed`,
    setup: emu => emu.addFault({route: 'assign', status, body: body('injected', 'profile_name is malformed')}),
    expect: {
      exit: 1,
      error,
      // A 5xx does not say whether the service assigned first: the user is told a builder may be billed.
      ...(status >= 500
        ? {
            warnings: [
              new RegExp(
                `The assignment from profile "p" failed with HTTP ${status}, which does not say whether a builder was assigned first; if the service processed it, a builder may be billed`
              )
            ]
          }
        : {noWarnings: true}),
      assigned: 0,
      also: ({emu}) => expect(requests(emu, 'assign')).toHaveLength(1)
    }
  })),
  {
    id: 'assign 500 after the service assigned (processed, then failed): warned, and the error says a builder may be billed',
    setup: emu => emu.addFault({route: 'assign', status: 500, processFirst: true, times: 1}),
    expect: {
      exit: 1,
      error: /HTTP 500.*a builder may have been assigned and billed anyway: check the web UI and tear it down/,
      warnings: [/failed with HTTP 500, which does not say whether a builder was assigned first/],
      assigned: 1,
      billed: 'unknowable'
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
    id: 'assign 404 because api-url has a wrong path: the error names both causes and api-url',
    job: {apiUrlSuffix: '/wrong-prefix'},
    expect: {
      exit: 1,
      error:
        /Failed to assign builder: HTTP 404.*unknown builder profile "p": check profile-name against the builder profiles in the web UI; or api-url \(http:\/\/127\.0\.0\.1:\d+\/wrong-prefix\) is not the service's API base/,
      assigned: 0
    }
  },
  {
    id: 'assign answered by a redirect: not followed (the key stays here), the error names where it points',
    setup: emu =>
      emu.addFault({
        route: 'assign',
        status: 308,
        headers: {Location: 'https://api.elsewhere.example/v2/api/v1/builders/assign'}
      }),
    expect: {
      exit: 1,
      error:
        /Failed to assign builder: HTTP 308: .*\(the answer redirects to https:\/\/api\.elsewhere\.example\/v2\/api\/v1\/builders\/assign: redirects are not followed, so the API key is never sent elsewhere; set api-url/,
      assigned: 0
    }
  },
  {
    id: 'assign 429 with Retry-After: 1: the retry waits the second the service asked for',
    setup: emu => emu.addFault({route: 'assign', status: 429, headers: {'Retry-After': '1'}, times: 1}),
    expect: {
      exit: 0,
      assigned: 1,
      also: ({emu}) => {
        const [first, second] = requests(emu, 'assign');
        expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(950);
      }
    }
  },
  {
    id: 'assign 429 every time: gives up after 4 attempts saying it is rate limited',
    setup: emu => emu.addFault({route: 'assign', status: 429}),
    expect: {
      exit: 1,
      error:
        /Failed to assign builder: HTTP 429.*rate limited by the service; try again later; gave up after 4 attempts/,
      assigned: 0
    }
  },
  {
    id: 'assign 503 twice: retried (503 means not processed), then built',
    setup: emu => emu.addFault({route: 'assign', status: 503, times: 2}),
    expect: {exit: 0, assigned: 1, also: ({emu}) => expect(requests(emu, 'assign')).toHaveLength(3)}
  },
  {
    id: 'assign connection reset before the service processed it: a clear error, nothing billed',
    setup: emu => emu.addFault({route: 'assign', action: 'reset'}),
    expect: {
      exit: 1,
      error: /Failed to assign builder: ECONNRESET/,
      warnings: [/was sent but got no answer \(ECONNRESET\)/],
      assigned: 0
    }
  },
  {
    id: 'assign processed but its answer lost (reset): the user is told a builder may be billed (API limit)',
    setup: emu => emu.addFault({route: 'assign', action: 'reset', processFirst: true, times: 1}),
    expect: {
      exit: 1,
      error:
        /Failed to assign builder: ECONNRESET.*a builder may have been assigned and billed anyway: check the web UI and tear it down/,
      warnings: [/was sent but got no answer \(ECONNRESET\); if the service processed it, a builder may be billed/],
      assigned: 1,
      billed: 'unknowable'
    }
  },
  {
    id: 'assign answer slower than the request timeout: the assignment waits (up to the readiness deadline), nothing leaks',
    setup: emu => emu.addFault({route: 'assign', delayMs: 2000, times: 1}),
    job: {env: {REMOTE_BUILDER_REQUEST_TIMEOUT_MS: '700'}},
    expect: {exit: 0, assigned: 1, also: ({emu}) => expect(requests(emu, 'assign')).toHaveLength(1)}
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
 * Faults while waiting for the builder: details errors, builder states, TLS material. Readiness is core's, the
 * same for every action: one action each. (A certificate from another CA: tls-fronts' wrong-server-cert and
 * tls-probe.test.ts.)
 */
const READINESS: Scenario[] = oneEach<Scenario>([
  {
    id: 'details 404 six times after assign (an eventually consistent service): not visible yet, then ready',
    setup: emu => emu.addFault({route: 'details', status: 404, times: 6}),
    // A grace (default 10 s) that six polls cannot outlast on a loaded machine: this is about the 404s within it.
    job: {env: {[Env.Details404GraceMs]: '30000'}},
    expect: {
      exit: 0,
      noWarnings: true,
      assigned: 1,
      also: ({emu}) => {
        const details = requests(emu, 'details');
        expect(details.filter(r => r.status === 404)).toHaveLength(6);
        // Polled like a pending builder (no backoff): never more than 10 details requests a second (the first 30 s).
        const span = (details[details.length - 1]?.at ?? 0) - (details[0]?.at ?? 0);
        expect(details.length - 1).toBeLessThanOrEqual(Math.ceil(span / 100) + 1);
      }
    }
  },
  {
    id: 'details 404 every time: once the grace (1 s here, 10 s by default) is over the builder is declared gone, torn down',
    setup: emu => emu.addFault({route: 'details', status: 404}),
    // A timeout far past the grace: it is the grace that ends the wait.
    job: {inputs: {timeout: '30000'}, env: {[Env.Details404GraceMs]: '1000'}},
    expect: {
      exit: 1,
      error: /Failed to get builder details: HTTP 404.*the builder does not exist/,
      assigned: 1,
      // A 404 within the grace is asked again: not given up on at the first one.
      also: ({emu}) => expect(requests(emu, 'details').filter(r => r.status === 404).length).toBeGreaterThanOrEqual(2)
    }
  },
  {
    id: 'details request hanging: the timeout holds (not the 15 s request limit), and says the request got no answer',
    setup: emu => emu.addFault({route: 'details', action: 'hang'}),
    job: {inputs: {timeout: '5000'}},
    expect: {
      exit: 1,
      error:
        /was not ready in time: the details request got no answer before the readiness deadline\. Timed out after 5000 ms: the service did not answer its last request, so raise the "timeout" input only if the service is slow rather than down/,
      // The 15 s request limit did not end the wait: the message names the readiness deadline, not the request's.
      assigned: 1
    }
  },
  {
    id: 'details 500 every time: times out naming the last error, torn down',
    setup: emu => emu.addFault({route: 'details', status: 500}),
    job: {inputs: {timeout: '5000'}},
    expect: {
      exit: 1,
      error:
        /was not ready in time: Failed to get builder details: HTTP 500.*Timed out after 5000 ms: the service kept failing until then, so a longer "timeout" would not help/,
      assigned: 1
    }
  },
  {
    id: 'details slower than the request timeout once: that request is abandoned and asked again',
    setup: emu => emu.addFault({route: 'details', delayMs: 2000, times: 1}),
    job: {env: {REMOTE_BUILDER_REQUEST_TIMEOUT_MS: '700'}},
    expect: {exit: 0, assigned: 1, also: ({emu}) => expect(requests(emu, 'details').length).toBeGreaterThanOrEqual(2)}
  },
  {
    id: 'builder never ready: times out naming the timeout input, torn down by main (post finds it done)',
    setup: emu => emu.addFault({route: 'builder', behaviour: 'never-ready'}),
    job: {inputs: {timeout: '5000'}},
    expect: {
      exit: 1,
      error:
        /was not ready in time: details lack host, ca, client_cert, client_key \(status "pending"\).*raise the "timeout" input/,
      assigned: 1,
      also: ({job}) => expect(job.posts[0]?.stdout).toMatch(/already torn down by main/)
    }
  },
  {
    id: 'builder failed: reported at once, torn down',
    setup: emu => emu.addFault({route: 'builder', behaviour: 'fail'}),
    expect: {exit: 1, error: /Builder bld_\w+ failed to start \(status "failed"\)/, assigned: 1}
  },
  {
    id: 'details without the PEMs although ready: declared broken after ~2 s, torn down',
    setup: emu => emu.addFault({route: 'builder', behaviour: 'missing-pem'}),
    expect: {
      exit: 1,
      error:
        /reports status "ready" but its details lack ca, client_cert, client_key: the service sent incomplete connection details/,
      assigned: 1
    }
  },
  {
    id: 'malformed PEMs: the TLS material is refused, torn down',
    setup: emu => emu.addFault({route: 'builder', behaviour: 'malformed-pem'}),
    expect: {exit: 1, error: /rejected the TLS material from its details/, assigned: 1}
  },
  {
    id: 'a host that never accepts TLS: times out naming the address, torn down',
    setup: emu => emu.addFault({route: 'builder', behaviour: 'tls-refuse'}),
    job: {inputs: {timeout: '5000'}},
    expect: {
      exit: 1,
      error: /was not ready in time: nothing accepts TLS connections at 127\.0\.0\.1:\d+ yet \(ECONNREFUSED\)/,
      assigned: 1
    }
  }
]);

/**
 * Faults on the teardown. The teardown is core's: configure (in post) and one build action (in main). The job's
 * teardown budget is the kit's (kit/job.ts FAULT_BUDGETS) unless a scenario is about the budget itself.
 */
const TEARDOWN: Scenario[] = onePerKind<Scenario>([
  {
    id: 'teardown 500 twice then 200: retried, torn down, no warning',
    setup: emu => emu.addFault({route: 'teardown', status: 500, times: 2}),
    expect: {
      exit: 0,
      noWarnings: true,
      assigned: 1,
      also: ({emu}) => expect(requests(emu, 'teardown').map(r => r.status)).toEqual([500, 500, 200])
    }
  },
  {
    id: 'teardown 404 (already gone, e.g. a retried teardown): counted as done, no warning',
    setup: emu => emu.addFault({route: 'teardown', status: 404, processFirst: true}),
    expect: {
      exit: 0,
      noWarnings: true,
      assigned: 1,
      also: ({job}) => expect(describeJob(job)).toMatch(/Builder bld_\w+ was already gone/)
    }
  },
  {
    id: 'teardown asks to come back in 60 s (Retry-After): the wait is cut to the budget (2 s here) and the builder torn down',
    setup: emu => emu.addFault({route: 'teardown', status: 503, headers: {'Retry-After': '60'}, times: 1}),
    job: {env: {[Env.TeardownTimeoutMs]: '2000'}},
    expect: a => ({
      exit: 0,
      assigned: 1,
      // Torn down by the step that tried first (main for a build, post for configure), inside its budget.
      noWarnings: true,
      also: ({emu, job}) => {
        expect(requests(emu, 'teardown').map(r => r.status)).toEqual([503, 200]);
        const first = a.tearsDownInMain ? job.main?.stdout : job.posts[0]?.stdout;
        expect(first).toMatch(/Builder bld_\w+ torn down/);
      }
    })
  },
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
 * docker buildx failing. Setting up buildx is core's: one action each. The build is each build action's own (its
 * command and error): both.
 */
const DOCKER: Scenario[] = oneEach<Scenario>([
  {
    id: 'buildx create failing: the step is named, the builder torn down in main, no other profile tried',
    job: {env: {FAKE_DOCKER_FAIL: 'create'}, inputs: {'profile-name': 'p, p2'}},
    expect: {
      exit: 1,
      error: /Failed to create buildx builder "remote-builder-\w+" \(node bld_\w+\): ERROR: fake docker: create failed/,
      assigned: 1,
      also: ({job}) => expect(job.dockerCalls.filter(c => c[1] === 'create')).toHaveLength(1)
    }
  },
  {
    // buildx boots the builder only when its BuildKit does not tell its version (< 0.11: no Control/Info).
    id: 'buildx inspect --bootstrap failing: named, torn down in main',
    buildkit: {api: 'no-info'},
    job: {env: {FAKE_DOCKER_FAIL: 'bootstrap'}},
    expect: {exit: 1, error: /Failed to bootstrap buildx builder "remote-builder-\w+"/, assigned: 1}
  },
  {
    id: 'the build failing: docker’s last line, builders torn down in main',
    appliesTo: builds,
    job: a => ({env: {FAKE_DOCKER_FAIL: a.buildCommand ?? 'build'}}),
    expect: a => ({exit: 1, error: a.buildFailure ?? /failed/, assigned: 1, also: toreDownInMain})
  }
]);

/**
 * SIGINT/SIGTERM in each phase, as the runner cancels (SIGINT, SIGTERM 7.5 s later, then the tree killed). Each
 * signal is sent only after a line that proves main reached the phase, and the error must name exactly that
 * phase. Cancellation before the build is core's: each signal and phase on one action, in turn; during post on
 * configure and one build action (SIGINT on build-push, SIGTERM on bake). During the build each build action
 * stops its own command: both.
 */
const SIGNALS: Scenario[] = [
  ...(
    [
      ['SIGINT', BUILD_PUSH],
      ['SIGTERM', BAKE]
    ] as const
  ).flatMap(([signal, build]): Scenario[] => {
    const inReadiness = {
      inputs: {'profile-name': 'slow'},
      mainSignals: [{signal, whenOutputMatches: WAITING}],
      cancelLikeRunner: true
    };
    const beforeTheBuild: Scenario[] = [
      {
        id: `${signal} while the assignment is in flight: its answer is awaited and that builder torn down`,
        // The assignment's group starts once the local checks are done; 800 ms later the request (answered after
        // 2 s) is in flight.
        setup: emu => emu.addFault({route: 'assign', delayMs: 2000, processFirst: true, times: 1}),
        job: {mainSignals: [{signal, whenOutputMatches: ASSIGNING, afterMs: 800}], cancelLikeRunner: true},
        expect: {
          exit: 1,
          error: cancelled(signal, 'while assigning a builder from profile "p"; torn down: bld_\\w+'),
          assigned: 1
        }
      },
      {
        id: `${signal} during readiness while the teardown is refused: the error names the builder that may still be billed`,
        setup: emu => emu.addFault({route: 'teardown', status: 401}),
        job: inReadiness,
        expect: {
          exit: 1,
          error: cancelled(
            signal,
            'while waiting for builders to be ready; NOT torn down, may still be billed: bld_\\w+ \\(Failed to tear down builder: HTTP 401'
          ),
          assigned: 1,
          billed: 'named'
        }
      },
      {
        id: `${signal} during readiness: torn down before main exits`,
        job: inReadiness,
        expect: {
          exit: 1,
          error: cancelled(signal, 'while waiting for builders to be ready; torn down: bld_\\w+'),
          assigned: 1,
          also: toreDownInMain
        }
      },
      {
        // A killed `inspect --bootstrap` is one of the buildx setup's commands failing: the phase is the setup.
        id: `${signal} while buildx boots the builder: the command is killed, torn down`,
        buildkit: {api: 'no-info'},
        job: {
          env: {FAKE_DOCKER_HANG: 'bootstrap'},
          mainSignals: [{signal, whenOutputMatches: BOOTSTRAPPING, afterMs: 300}],
          cancelLikeRunner: true
        },
        expect: {
          exit: 1,
          error: cancelled(signal, 'while setting up the buildx builder; torn down: bld_\\w+'),
          assigned: 1
        }
      }
    ];
    const duringPost: Scenario = {
      id: `${signal} during post: post finishes the teardown first`,
      setup: emu => emu.addFault({route: 'teardown', delayMs: 1200}),
      job: a => ({
        // A build action tears down in main; killing main mid-build leaves the teardown to post.
        ...(a.tearsDownInMain
          ? {env: {FAKE_DOCKER_BUILD_MS: '3000'}, mainSignals: [{signal: 'SIGKILL', whenOutputMatches: BUILDING}]}
          : {}),
        postSignals: [{signal, whenOutputMatches: REMOVING, afterMs: 200}]
      }),
      expect: a => ({
        exit: a.tearsDownInMain ? 'killed' : 0,
        assigned: 1,
        also: ({job}) => {
          expect(job.posts[0]?.stdout).toContain(
            `Received ${signal}: finishing the cleanup first so nothing stays billed`
          );
          expect(job.posts[0]?.stdout).toMatch(/Builder bld_\w+ torn down/);
        }
      })
    };
    // Before the build every action is cancelled the same way (main tears down): each phase on one action,
    // in turn, SIGTERM one action on from SIGINT. During post the actions differ (configure's teardown is
    // post's own; a build action's is left to post only when main is killed): configure and the build action.
    const turn = signal === 'SIGINT' ? 0 : 1;
    return [
      ...beforeTheBuild.map((s, i) => ({...s, appliesTo: (a: ActionUnderTest) => a === ACTIONS[(i + turn) % 3]})),
      {...duringPost, appliesTo: configureAnd(build)},
      {
        id: `${signal} during the build: the build is stopped, torn down before main exits`,
        appliesTo: builds,
        job: a => ({
          env: {FAKE_DOCKER_HANG: a.buildCommand ?? 'build'},
          mainSignals: [{signal, whenOutputMatches: BUILDING}],
          cancelLikeRunner: true
        }),
        expect: a => ({
          exit: 1,
          error: a.cancelledInBuild?.(signal) ?? new RegExp(`Cancelled by ${signal}`),
          assigned: 1,
          also: toreDownInMain
        })
      }
    ];
  }),
  {
    // What post does for a killed main is the same for both build actions: one of them.
    id: 'main killed outright (the runner’s SIGKILL) mid-build: post tears down what main could not',
    appliesTo: a => a === BUILD_PUSH,
    job: {env: {FAKE_DOCKER_BUILD_MS: '3000'}, mainSignals: [{signal: 'SIGKILL', whenOutputMatches: BUILDING}]},
    expect: {
      exit: 'killed',
      assigned: 1,
      also: ({job}) => expect(job.posts[0]?.stdout).toMatch(/Builder bld_\w+ torn down/)
    }
  }
];

/** The post step on its own: core's, configure and one build action. */
const POST: Scenario[] = onePerKind<Scenario>([
  {
    id: 'post run twice: the second finds nothing billed and warns about nothing',
    job: {posts: 2},
    expect: {exit: 0, noWarnings: true, assigned: 1}
  },
  {
    id: 'post with no state: nothing to clean up, no API call',
    job: {skipMain: true},
    expect: {
      exit: 0,
      noWarnings: true,
      assigned: 0,
      also: ({emu, job}) => {
        expect(job.posts[0]?.stdout).toMatch(/Nothing to clean up/);
        expect(emu.requests()).toEqual([]);
      }
    }
  }
]);

/** A list of profiles: core's, one action each. */
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
    id: 'profiles "p, p2" with p answering 503: p2 used',
    setup: emu => emu.addFault({route: 'assign', status: 503, profile: 'p'}),
    job: {inputs: {'profile-name': 'p, p2'}},
    expect: {exit: 0, warnings: [/Profile "p" gave no ready builder \(Failed to assign builder: HTTP 503/], assigned: 1}
  },
  {
    id: 'profiles "p, p2" with p answering 401: the key is refused, p2 is not tried',
    setup: emu => emu.addFault({route: 'assign', status: 401, profile: 'p'}),
    job: {inputs: {'profile-name': 'p, p2'}},
    expect: {
      exit: 1,
      error: /HTTP 401.*check the api-key/,
      assigned: 0,
      also: ({emu}) => expect(requests(emu, 'assign').map(r => r.profile)).toEqual(['p'])
    }
  }
]);

/** Controls: the happy path under the same checks, on every action. */
const BASELINE: Scenario[] = [
  {
    id: 'no fault: built or configured, torn down, no warning',
    expect: {
      exit: 0,
      noWarnings: true,
      assigned: 1,
      also: ({action, job}) => {
        // One node: its CA, certificate and key, left by main while configure's builder lives on; build-push
        // and bake tear theirs down in main, and its key goes with it.
        expect(job.certs.files).toBe(action.name === 'configure' ? 3 : 0);
        expect(job.main?.masks).toContain(API_KEY);
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
  ...POST,
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
