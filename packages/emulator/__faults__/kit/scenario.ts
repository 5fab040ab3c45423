// A fault scenario: how to break the service, the builder, docker or the step, and what the user must see.
// runScenario() checks the invariants every scenario shares: exit code, error annotation, warnings, the
// ledger after post (nothing billed unless the service refuses every teardown), no secret in any output,
// private certificate files removed by post, and a post step that never fails.
import {expect} from '@jest/globals';
import type {BuildkitEmulation, Emulator, ProfileConfig} from '@remote-builder-actions/emulator';
import type {ActionUnderTest} from './actions.js';
import {removeJob, runJob, startEmulator, type JobOpts, type JobResult} from './job.js';

/** What is left billed after post. */
export type Billed =
  /** Nothing: every builder ever assigned is terminated. */
  | 'none'
  /** The service refuses every teardown: these stay billed and a post warning names each of them. */
  | 'named'
  /**
   * The service assigned a builder but its answer was lost (sent, no response): nobody can name it. The user
   * is warned that a builder may be billed; the id appears nowhere (an API limit: no idempotency key, no list).
   */
  | 'unknowable';

export interface Expectation {
  /** main's exit code; 'killed' when the scenario kills it. Ignored with skipMain. */
  exit: 0 | 1 | 'killed';
  /** main's error annotation. */
  error?: RegExp;
  /** Each must match a warning of some step. */
  warnings?: RegExp[];
  /** No warning at all in any step. */
  noWarnings?: boolean;
  /** Builders the ledger shows ever assigned; default: not checked. */
  assigned?: number;
  /** Default 'none'. */
  billed?: Billed;
  /** Further checks. */
  also?: (ctx: ScenarioContext) => void;
}

export interface ScenarioContext {
  action: ActionUnderTest;
  emu: Emulator;
  job: JobResult;
}

export interface Scenario {
  id: string;
  /** Which actions it applies to; default all. */
  appliesTo?: (a: ActionUnderTest) => boolean;
  profiles?: ProfileConfig[];
  /** How the builders' BuildKit answers (default: its Control API, so buildx never boots them). */
  buildkit?: BuildkitEmulation;
  /** Faults and other set-up on the scenario's own emulator. */
  setup?: (emu: Emulator) => void;
  job?: Omit<JobOpts, 'action' | 'emu'> | ((a: ActionUnderTest) => Omit<JobOpts, 'action' | 'emu'>);
  expect: Expectation | ((a: ActionUnderTest) => Expectation);
}

/** The actions a scenario applies to. */
export function cases(
  scenarios: Scenario[],
  actions: ActionUnderTest[]
): [string, string, Scenario, ActionUnderTest][] {
  return actions.flatMap(a =>
    scenarios
      .filter(s => s.appliesTo?.(a) ?? true)
      .map((s): [string, string, Scenario, ActionUnderTest] => [a.name, s.id, s, a])
  );
}

/** Runs one scenario on a fresh emulator and checks every invariant. */
export async function runScenario(s: Scenario, action: ActionUnderTest): Promise<ScenarioContext> {
  const emu = await startEmulator(s.profiles, s.buildkit);
  let job: JobResult | undefined;
  // A delayed request is processed when its delay ends, even if the client gave up on it: the ledger is read
  // only once every request the job sent has been processed.
  let maxDelayMs = 0;
  const addFault = emu.addFault.bind(emu);
  emu.addFault = rule => {
    if ('delayMs' in rule && rule.delayMs) maxDelayMs = Math.max(maxDelayMs, rule.delayMs);
    return addFault(rule);
  };
  try {
    s.setup?.(emu);
    const jobOpts = typeof s.job === 'function' ? s.job(action) : (s.job ?? {});
    job = await runJob({action, emu, ...jobOpts});
    const want = typeof s.expect === 'function' ? s.expect(action) : s.expect;
    const ctx: ScenarioContext = {action, emu, job};
    const all = describeJob(job);

    if (job.main) {
      if (want.exit === 'killed') expect(job.main.signal).toBe('SIGKILL');
      else expect({exit: job.main.exitCode, log: all}).toMatchObject({exit: want.exit});
      if (want.error) expect(job.error).toMatch(want.error);
      if (want.exit === 0) expect(job.error).toBe('');
    }
    for (const w of want.warnings ?? []) {
      expect({warnings: job.warnings, log: all}).toMatchObject({
        warnings: expect.arrayContaining([expect.stringMatching(w)])
      });
    }
    if (want.noWarnings) expect(job.warnings).toEqual([]);

    // Post never fails the job, whatever happened in main.
    for (const p of job.posts) {
      expect({exit: p.exitCode, log: all}).toMatchObject({exit: 0});
      expect(p.annotations.filter(a => a.level === 'error')).toEqual([]);
    }

    // No buildx builder (remote nodes or a local fallback) is left behind on the runner.
    if (job.posts.length > 0) expect({buildersLeft: job.buildersLeft, log: all}).toMatchObject({buildersLeft: []});

    // Secret hygiene and the private certificate folder.
    expect(job.leaks).toEqual([]);
    expect(job.certs.modeProblems).toEqual([]);
    if (job.posts.length > 0) expect(job.certs.leftAfterPost).toBe(false);

    // The ledger after post, once every delayed request has been processed.
    const lastArrival = Math.max(0, ...emu.requests().map(r => r.at));
    const settleMs = lastArrival + maxDelayMs + 100 - Date.now();
    if (maxDelayMs > 0 && settleMs > 0) await new Promise(resolve => setTimeout(resolve, settleMs));
    if (want.assigned !== undefined) expect(emu.ledger()).toHaveLength(want.assigned);
    const live = emu.assignedBuilders().map(e => e.builderId);
    switch (want.billed ?? 'none') {
      case 'none':
        expect({live, log: all}).toMatchObject({live: []});
        break;
      case 'named': {
        expect(live.length).toBeGreaterThan(0);
        const lastPost = job.posts[job.posts.length - 1];
        const postWarnings = lastPost?.annotations.filter(a => a.level === 'warning').map(a => a.message) ?? [];
        for (const id of live) {
          expect(postWarnings).toEqual(
            expect.arrayContaining([expect.stringMatching(new RegExp(`${id}.*MAY STILL BE BILLED`))])
          );
        }
        break;
      }
      case 'unknowable':
        expect(live).toHaveLength(1);
        expect(job.warnings).toEqual(
          expect.arrayContaining([expect.stringMatching(/a builder may (still )?be billed/)])
        );
        // The client never learned the id: it is in no output and in no state.
        for (const id of live) expect(all).not.toContain(id);
        break;
    }
    want.also?.(ctx);
    return ctx;
  } finally {
    await emu.close();
    if (job) removeJob(job);
  }
}

/** Everything a job printed, for failure messages and id searches. */
export function describeJob(job: JobResult): string {
  const steps = [
    ...(job.main ? [['main', job.main] as const] : []),
    ...job.posts.map((p, i) => [`post#${i + 1}`, p] as const)
  ];
  return steps
    .map(
      ([name, r]) =>
        `--- ${name} (exit ${r.exitCode}${r.signal ? `, ${r.signal}` : ''})\n${r.stdout}${r.stderr}\n[state] ${r.rawFiles.state}`
    )
    .join('\n');
}
