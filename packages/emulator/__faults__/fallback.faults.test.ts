// Graceful degradation (`fallback: local`): when the service cannot give a ready builder, the build runs on a
// docker-container builder made for the step (fake docker), with a warning saying why; never for mistakes
// that would repeat (bad key, unknown profile) or a cancelled run. With the invariants of runScenario (nothing
// billed, no builder left, no secret shown). The fallback is core's, the same for both build actions (the ones
// with a `fallback` input) up to the build: the first scenario runs on both (each builds locally its own way),
// the others on build-push and bake in turn; one that names its actions keeps them.
import {afterAll, beforeAll, describe, expect, test} from '@jest/globals';
import {ACTIONS, buildsInTurn, requireBundles} from './kit/actions.js';
import type {JobOpts, JobResult} from './kit/job.js';
import {cases, runScenario, type Expectation, type Scenario, type ScenarioContext} from './kit/scenario.js';
import {reportScan} from './kit/secret-scan.js';

const LOCAL = /^remote-builder-fallback-[0-9a-f]{8}$/;
const WARNED =
  /No remote builder could be had \(.*\): .*\. Building on a local docker-container builder instead \(fallback: local\)/;

/** The docker calls of a build that fell back: create, boot, build on it, remove it. */
function builtLocally(job: JobResult): string {
  const create = job.dockerCalls.find(c => c[1] === 'create' && c.includes('docker-container')) ?? [];
  const name = create[create.indexOf('--name') + 1] ?? '';
  expect(name).toMatch(LOCAL);
  expect(create).toEqual(['buildx', 'create', '--name', name, '--driver', 'docker-container']);
  expect(job.dockerCalls).toContainEqual(['buildx', 'inspect', '--bootstrap', '--builder', name]);
  // build-push's `buildx build`, or bake's `buildx bake` (not its `--print`, which needs no builder).
  const build = job.dockerCalls.find(c => c[1] === 'build' || (c[1] === 'bake' && !c.includes('--print'))) ?? [];
  expect(build[build.indexOf('--builder') + 1]).toBe(name);
  expect(job.dockerCalls).toContainEqual(['buildx', 'rm', name]);
  return name;
}

const fellBack = (why: RegExp, assigned: number, more?: (ctx: ScenarioContext) => void): Expectation => ({
  exit: 0,
  warnings: [WARNED, why],
  assigned,
  also: ctx => {
    builtLocally(ctx.job);
    if (ctx.action.name === 'bake')
      expect(ctx.job.main?.outputs['metadata']).toMatch(/"containerimage\.digest": "sha256:/);
    else expect(ctx.job.main?.outputs['digest']).toMatch(/^sha256:/);
    // One build ran, on the local builder; no remote builder was ready, so no time-to-ready.
    expect(ctx.job.main?.outputs['attempts']).toBe('1');
    expect(ctx.job.main?.outputs['time-to-ready']).toBeUndefined();
    expect(ctx.job.posts[0]?.summary).toMatch(/Local fallback builder/);
    more?.(ctx);
  }
});

/**
 * Which failures fall back and which do not (each status, a reset, never ready, a failed builder, a list of
 * profiles, a refused key, an unknown profile, a cancelled run, fallback none) is fallbackReason's, in
 * core/__tests__/lifecycle/local-fallback.test.ts; the decision feeds one path, the same for every reason. Here
 * each way a job with the fallback ends: built locally (with and without a remote builder to tear down first),
 * the local builder failing to be made, a local check failing on it, main killed on it.
 */
const SCENARIOS: Scenario[] = [
  {
    // On build-push with an older buildx and an input it ignores: the local checks run once, their warnings
    // print once, also when the build falls back.
    id: 'assign 503 every time: built locally, saying the service answered 503 (build-push: the local checks’ warnings print once)',
    setup: emu => emu.addFault({route: 'assign', status: 503}),
    job: (a): Omit<JobOpts, 'action' | 'emu'> =>
      a.name === 'build-push'
        ? {
            inputs: {fallback: 'local', annotations: 'index:org.opencontainers.image.title=x'},
            env: {FAKE_DOCKER_BUILDX_VERSION: '0.11.2'}
          }
        : {inputs: {fallback: 'local'}},
    expect: fellBack(/the service answered HTTP 503/, 0, ({action, job}) => {
      if (action.name !== 'build-push') return;
      expect(job.warnings.filter(w => /Annotations are only supported by buildx >= 0\.12\.0/.test(w))).toHaveLength(1);
    })
  },
  {
    id: 'never ready within the timeout: the remote builder torn down, built locally',
    setup: emu => emu.addFault({route: 'builder', behaviour: 'never-ready'}),
    job: {inputs: {fallback: 'local', timeout: '1500'}},
    expect: fellBack(/no remote builder was ready within the timeout/, 1)
  },
  {
    id: 'the local builder cannot be created: both reasons named',
    setup: emu => emu.addFault({route: 'assign', status: 503}),
    job: {inputs: {fallback: 'local'}, env: {FAKE_DOCKER_FAIL: 'create-local'}},
    expect: {
      exit: 1,
      error:
        /No remote builder could be had, and the local fallback failed too: Failed to create the local fallback builder "remote-builder-fallback-\w+": ERROR: fake docker: create-local failed/,
      warnings: [WARNED],
      assigned: 0
    }
  },
  {
    id: 'a platform the local builder lacks: fails before building, naming QEMU; the local builder removed',
    appliesTo: a => a.platforms,
    setup: emu => emu.addFault({route: 'assign', status: 503}),
    job: {inputs: {fallback: 'local', platforms: 'linux/arm64'}},
    expect: {
      exit: 1,
      error: /asks for arm64.*install QEMU for arm64 on the runner \(docker\/setup-qemu-action\)/,
      assigned: 0,
      also: ({job}) => {
        expect(job.dockerCalls.filter(c => c[1] === 'build')).toEqual([]);
        expect(job.dockerCalls.some(c => c[1] === 'rm' && LOCAL.test(c[2] ?? ''))).toBe(true);
      }
    }
  },
  {
    id: 'main killed during the local build: post removes the local builder',
    setup: emu => emu.addFault({route: 'assign', status: 503}),
    job: {
      inputs: {fallback: 'local'},
      env: {FAKE_DOCKER_BUILD_MS: '3000'},
      mainSignals: [{signal: 'SIGKILL', whenOutputMatches: /#0 building with "remote-builder-fallback-/}]
    },
    expect: {
      exit: 'killed',
      assigned: 0,
      also: ({job}) => {
        expect(job.posts[0]?.stdout).toMatch(/Removed the local fallback builder "remote-builder-fallback-\w+"/);
      }
    }
  }
];

const CASES = cases(
  SCENARIOS.map((s, i) => ({...s, appliesTo: s.appliesTo ?? buildsInTurn(i)})).map(s => ({
    ...s,
    appliesTo: a => a.fallback && s.appliesTo(a)
  })),
  ACTIONS
);

beforeAll(() => requireBundles());
afterAll(() => {
  console.log(`fallback: ${SCENARIOS.length} scenarios, ${CASES.length} runs`);
  reportScan('fallback');
});

describe('fallback: local', () => {
  test.concurrent.each(CASES)('%s: %s', async (_name, _id, scenario, action) => {
    await runScenario(scenario, action);
  });
});
