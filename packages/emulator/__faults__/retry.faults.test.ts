// Safe automatic retry and the lost-builder watchdog, through the bundled build actions: the fake docker
// fails its first builds with buildx's failure outputs (FAKE_DOCKER_BUILD_FAIL_TIMES/_OUTPUT), or hangs the
// first one and fails its builder on the emulator (FAKE_DOCKER_BUILD_HANG_*). Only infrastructure failures
// are retried (`retries`, default 1): on the same builder while it is still ready, else on a new one. Every
// scenario also runs runScenario's invariants (nothing billed after post, no builder left, no secret shown).
// The retry and the watchdog are core's, around each build action's own build command: the first scenario
// runs on both build actions, the others on build-push and bake in turn. Which buildx failure is which kind
// (infrastructure, the user's, unknown) is classifyBuildFailure's (core's unit tests, and the fake docker's
// below): here one of each way the step goes (retried on the same builder, not retried, a new builder after a
// lost one). Retries exhausted and `retries: 0` are build-attempts.test.ts's (the step then fails as a build
// that is not retried does, and the fault matrix's build failing shows that end to end).
import {afterAll, afterEach, beforeAll, beforeEach, describe, expect, test} from '@jest/globals';
import {spawn, spawnSync} from 'node:child_process';
import {existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {classifyBuildFailure, parseCacheReport, type BuildFailureKind} from '@remote-builder-actions/core';
import {ACTIONS, buildsInTurn, FAKE_DOCKER_BIN, requireBundles} from './kit/actions.js';
import type {JobResult} from './kit/job.js';
import {
  cases,
  describeJob,
  runScenario,
  type Expectation,
  type Scenario,
  type ScenarioContext
} from './kit/scenario.js';
import {reportScan} from './kit/secret-scan.js';

const RETRY_LINE = /^.*Retrying the build.*$/m;

/** The `buildx build` / `buildx bake` runs of a job (not bake's `--print`, which builds nothing). */
function buildCalls(job: JobResult): string[][] {
  return job.dockerCalls.filter(c => c[1] === 'build' || (c[1] === 'bake' && !c.includes('--print')));
}

/** main's log: what it printed, docker's echoed output included. */
function mainLog(job: JobResult): string {
  return `${job.main?.stdout ?? ''}${job.main?.stderr ?? ''}`;
}

/** The job summary post wrote (the run report). */
function summary(job: JobResult): string {
  return job.posts[0]?.summary ?? '';
}

/** The fake docker's env for builds that fail `times` times with a buildx failure of `kind`. */
function failing(kind: string, times = 1): Record<string, string> {
  return {FAKE_DOCKER_BUILD_FAIL_TIMES: String(times), FAKE_DOCKER_BUILD_FAIL_OUTPUT: kind};
}

/** The only builder the ledger shows. */
function onlyBuilder({emu}: ScenarioContext): string {
  const ledger = emu.ledger();
  expect(ledger).toHaveLength(1);
  return ledger[0]?.builderId ?? '';
}

/** `cached-steps` "c/t" and `cache-ratio` agree, and are the given numbers. */
function expectCacheOutputs(job: JobResult, cached: number, total: number): void {
  const outputs = job.main?.outputs ?? {};
  expect({outputs, log: describeJob(job)}).toMatchObject({outputs: {'cached-steps': `${cached}/${total}`}});
  const ratio = outputs['cache-ratio'] ?? '';
  expect(ratio).toMatch(/^[01](\.\d+)?$/);
  expect(Number(ratio)).toBeCloseTo(cached / total, 2);
}

/** A successful build reports how long its builders took to be ready (the emulator's readyDelayMs is 150). */
function expectTimeToReady(job: JobResult): void {
  const ttr = job.main?.outputs['time-to-ready'] ?? '';
  expect(ttr).toMatch(/^\d+$/);
  expect(Number(ttr)).toBeGreaterThanOrEqual(150);
}

/**
 * One infrastructure failure, then success on the same builder, still ready: 2 builds, 1 builder, one retry
 * line naming it, `attempts` 2, and the run report says so.
 */
function retriedOnSameBuilder(more?: (ctx: ScenarioContext) => void): Expectation {
  return {
    exit: 0,
    assigned: 1,
    also: ctx => {
      const {job} = ctx;
      const id = onlyBuilder(ctx);
      expect(buildCalls(job)).toHaveLength(2);
      const retries = mainLog(job).match(new RegExp(RETRY_LINE.source, 'gm')) ?? [];
      expect({retries, log: describeJob(job)}).toMatchObject({
        retries: [
          expect.stringMatching(new RegExp(`Retrying the build \\(attempt 2 of 2\\) on the same builder ${id}: `))
        ]
      });
      // Both builds ran on the same buildx builder.
      const builders = buildCalls(job).map(c => c[c.indexOf('--builder') + 1]);
      expect(builders[0]).toBeDefined();
      expect(builders[1]).toBe(builders[0]);
      expect(job.main?.outputs['attempts']).toBe('2');
      expectTimeToReady(job);
      expect(summary(job)).toMatch(/after 2 attempts/);
      expect(summary(job)).toMatch(/infrastructure failure/);
      more?.(ctx);
    }
  };
}

/** Not retried: 1 build, no retry line, main fails with buildx's last line. */
function notRetried(error: RegExp): Expectation {
  return {
    exit: 1,
    error,
    assigned: 1,
    also: ({job}) => {
      expect(buildCalls(job)).toHaveLength(1);
      expect(mainLog(job)).not.toMatch(RETRY_LINE);
      expect(job.main?.outputs['attempts'] ?? '1').toBe('1');
      expect(summary(job)).not.toMatch(/after \d+ attempts/);
    }
  };
}

/** buildx's last line, as a pattern. */
const lastLine = (text: string): RegExp => new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));

/** No such process, or a zombie. */
function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ESRCH') return true;
    throw e;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

/** The pids the fake docker recorded for its build runs, in order. */
function buildPids(job: JobResult): number[] {
  const file = join(job.work, 'docker', 'calls.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .filter(l => l !== '')
    .map(l => JSON.parse(l) as {argv: string[]; pid?: number})
    .filter(r => r.argv[1] === 'build' || (r.argv[1] === 'bake' && !r.argv.includes('--print')))
    .map(r => r.pid ?? 0);
}

/** How long the watchdog may take: details every 5 s, a builder lost at once when it has failed. */
const LOST_WITHIN_MS = 45_000;

/**
 * A builder lost mid-build, status-based: the first build goes silent and then its builder fails (the fake
 * docker fails it on the emulator once the build has started, so the order never depends on the machine's
 * speed, as a timed `fail-after-ms` fault would). A new scenario per run: it keeps its emulator's URL.
 */
function builderLostMidBuild(): Scenario {
  let emulatorUrl = '';
  return {
    id: 'builder fails mid-build (status failed, build stream silent): the watchdog stops the build, a new builder builds',
    setup: emu => {
      emulatorUrl = emu.url;
    },
    // runScenario calls setup before job.
    job: () => ({env: {FAKE_DOCKER_BUILD_HANG_TIMES: '1', FAKE_DOCKER_BUILD_HANG_FAIL_BUILDERS: emulatorUrl}}),
    expect: {
      exit: 0,
      assigned: 2,
      also: ({emu, job}) => {
        expect(job.main?.durationMs).toBeLessThan(LOST_WITHIN_MS);
        const [first, second] = emu.ledger();
        expect(first?.builderId).toBeDefined();
        expect(second?.builderId).not.toBe(first?.builderId);
        expect(buildCalls(job)).toHaveLength(2);
        // The hung build was stopped (main went on), and nothing of it is left.
        const pids = buildPids(job);
        expect(pids).toHaveLength(2);
        expect(gone(pids[0] ?? 0)).toBe(true);
        const line = /Retrying the build \(attempt 2 of 2\) on a new builder: (.*)$/m.exec(mainLog(job));
        expect({line: line?.[0], log: describeJob(job)}).toMatchObject({
          line: expect.stringContaining(first?.builderId ?? '-')
        });
        // One line: why the builder is not used again, then why the build failed, each said once.
        const why = (line?.[1] ?? '').split('; ');
        expect({line: line?.[0], repeated: why.filter((w, i) => why.indexOf(w) !== i)}).toMatchObject({repeated: []});
        expect(job.main?.outputs['attempts']).toBe('2');
        expectTimeToReady(job);
        // The new builder's cache is empty: the second build is cold.
        expectCacheOutputs(job, 0, 3);
        expect(summary(job)).toMatch(/after 2 attempts/);
        expect(summary(job)).toContain(first?.builderId ?? '-');
        expect(summary(job)).toContain(second?.builderId ?? '-');
      }
    }
  };
}

export const SCENARIOS: Scenario[] = [
  {
    id: 'stream lost once (gRPC Unavailable, EOF): retried on the same, still ready builder, warm; succeeds',
    job: {env: failing('stream-lost')},
    expect: retriedOnSameBuilder(({job}) => {
      expect(mainLog(job)).toMatch(/Retrying the build .*on the same builder bld_\w+: .*lost/);
      // The fake docker's Dockerfile has 3 build steps (WORKDIR, COPY, RUN), all CACHED on a warm builder:
      // cached-steps and cache-ratio are the warm build's.
      expectCacheOutputs(job, 3, 3);
      expect(summary(job)).toMatch(/Attempt 2:[^\n]*\bwarm\b/);
    })
  },
  {
    id: 'a RUN step exits 1: the user’s failure, not retried; the error is buildx’s last line',
    job: {env: failing('user-run-exit')},
    expect: notRetried(
      lastLine(
        'ERROR: failed to build: failed to solve: process "/bin/sh -c go mod download" did not complete successfully: exit code: 1'
      )
    )
  }
];

const BUILDS = ACTIONS.filter(a => a.builds);
const CASES = cases(
  [...SCENARIOS, builderLostMidBuild()].map((s, i): Scenario => ({...s, appliesTo: buildsInTurn(i)})),
  ACTIONS
);

beforeAll(() => requireBundles(BUILDS));
afterAll(() => reportScan('retry'));

describe('safe retry and the lost-builder watchdog', () => {
  test.concurrent.each(CASES)('%s: %s', async (_name, _id, scenario, action) => {
    await runScenario(scenario, action);
  });
});

/** The fake docker on its own: what the scenarios above rely on. */
describe('the fake docker fails like buildx', () => {
  const script = join(FAKE_DOCKER_BIN, 'fake-docker.mjs');
  let dir = '';
  /** The fake's environment: its builders (buildx's records) and build history in the test's folder. */
  const base = (): Record<string, string> => ({
    PATH: process.env['PATH'] ?? '',
    FAKE_DOCKER_DIR: join(dir, 'docker'),
    BUILDX_CONFIG: join(dir, 'buildx')
  });
  const run = (args: string[], env: Record<string, string> = {}) =>
    spawnSync(process.execPath, [script, ...args], {
      cwd: dir,
      env: {...base(), ...env},
      encoding: 'utf8'
    });
  const build = (builder: string, env: Record<string, string> = {}) =>
    run(['buildx', 'build', '--builder', builder, '--tag', 'user/app:1', '.'], env);

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'fake-docker-'));
    // The build context: the fake docker reads its Dockerfile (3 build steps: WORKDIR, COPY, RUN).
    writeFileSync(join(dir, 'Dockerfile'), 'FROM alpine:3.20\nWORKDIR /src\nCOPY . .\nRUN ./build.sh\n');
  });
  afterEach(() => rmSync(dir, {recursive: true, force: true}));

  const KINDS: [string, BuildFailureKind][] = [
    ['stream-lost', 'infrastructure'],
    ['push-reset', 'infrastructure'],
    ['registry-502', 'infrastructure'],
    ['user-run-exit', 'user'],
    ['registry-401', 'user'],
    ['unknown', 'unknown']
  ];
  test.each(KINDS)('%s: the first build fails as buildx does (classified %s)', (kind, cls) => {
    const failed = build('b', failing(kind));
    expect(failed.status).toBe(1);
    expect(failed.stderr.split('\n')[0]).toBe('#0 building with "b" instance using remote driver');
    expect(failed.stderr.trimEnd().split('\n').at(-1)).toMatch(/^ERROR: /);
    expect(classifyBuildFailure(failed.stdout + failed.stderr).kind).toBe(cls);
  });

  // The count of failures is one counter whatever the kind: the build after the last one succeeds.
  test('FAKE_DOCKER_BUILD_FAIL_TIMES=2: two builds fail, the third succeeds', () => {
    const env = failing('registry-502', 2);
    expect([build('b', env).status, build('b', env).status, build('b', env).status]).toEqual([1, 1, 0]);
  });

  test('an unknown FAKE_DOCKER_BUILD_FAIL_OUTPUT is refused, naming the kinds', () => {
    const r = build('b', failing('nope'));
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/FAKE_DOCKER_BUILD_FAIL_OUTPUT="nope" is not one of stream-lost, push-reset/);
  });

  test('the first build on a builder is cold, the next warm; another builder, or the same name on a new node, is cold', () => {
    const create = (endpoint: string) =>
      expect(run(['buildx', 'create', '--name', 'b', '--node', 'n', '--driver', 'remote', endpoint]).status).toBe(0);
    create('tcp://127.0.0.1:1001');
    expect(parseCacheReport(build('b').stderr)).toEqual({steps: 3, cached: 0, ratio: 0});
    expect(parseCacheReport(build('b').stderr)).toEqual({steps: 3, cached: 3, ratio: 1});
    expect(parseCacheReport(build('other').stderr)).toEqual({steps: 3, cached: 0, ratio: 0});
    expect(run(['buildx', 'rm', 'b']).status).toBe(0);
    create('tcp://127.0.0.1:1002');
    expect(parseCacheReport(build('b').stderr)).toEqual({steps: 3, cached: 0, ratio: 0});
  });

  test('a bake of two targets prefixes the vertices with the target, as buildx does', () => {
    writeFileSync(
      join(dir, 'docker-bake.hcl'),
      'group "default" {\n  targets = ["app", "tool"]\n}\ntarget "app" {\n}\ntarget "tool" {\n  dockerfile = "tool.Dockerfile"\n}\n'
    );
    const bake = () => run(['buildx', 'bake', '--builder', 'b']);
    const cold = bake();
    expect(cold.status).toBe(0);
    expect(cold.stderr).toMatch(/^#\d+ \[tool internal\] load build definition from tool\.Dockerfile$/m);
    expect(parseCacheReport(cold.stderr)?.targets).toEqual({
      app: {steps: 3, cached: 0, ratio: 0},
      tool: {steps: 3, cached: 0, ratio: 0}
    });
    expect(parseCacheReport(bake().stderr)).toMatchObject({steps: 6, cached: 6});
  });

  test('a hung build prints its first vertices and a started RUN step, then waits to be killed; the next one succeeds', async () => {
    const child = spawn(process.execPath, [script, 'buildx', 'build', '--builder', 'b', '.'], {
      cwd: dir,
      env: {...base(), FAKE_DOCKER_BUILD_HANG_TIMES: '1'},
      stdio: ['ignore', 'ignore', 'pipe']
    });
    let stderr = '';
    const exited = new Promise<NodeJS.Signals | null>(resolve =>
      child.once('exit', (_code, signal) => resolve(signal))
    );
    // Until it shows the started RUN step, or ends (which fails below).
    await Promise.race([
      exited,
      new Promise<void>(resolve =>
        child.stderr.on('data', (d: Buffer) => {
          stderr += d.toString();
          if (/RUN \.\/build\.sh\n#\d+ 0\.231 compiling\n/.test(stderr)) resolve();
        })
      )
    ]);
    // It has not ended by itself: the kill is what ends it.
    expect(child.exitCode).toBeNull();
    child.kill('SIGTERM');
    expect(await exited).toBe('SIGTERM');
    expect(stderr).not.toMatch(/exporting to image/);
    expect(build('b', {FAKE_DOCKER_BUILD_HANG_TIMES: '1'}).status).toBe(0);
  });
});
