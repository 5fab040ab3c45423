// 4 jobs at once on one profile of one emulator (the actions taking turns): each tears down exactly the
// builders it was assigned, no more (nobody else's) and no fewer, and the ledger ends with none assigned.
import {afterAll, beforeAll, describe, expect, test} from '@jest/globals';
import type {Emulator} from '@remote-builder-actions/emulator';
import {Env} from '@remote-builder-actions/core';
import {ACTIONS, requireBundles} from './kit/actions.js';
import {removeJob, runJob, startEmulator, type JobResult} from './kit/job.js';
import {describeJob} from './kit/scenario.js';
import {reportScan} from './kit/secret-scan.js';

const RUNS = 4;

let emu: Emulator;
let jobs: JobResult[] = [];

beforeAll(async () => {
  requireBundles();
  emu = await startEmulator([
    {name: 'shared', architectures: ['amd64', 'arm64'], buildersPerAssignment: 2, readyDelayMs: 300}
  ]);
  // A little latency and a few refused teardowns, shared by everyone, so the runs interleave and retry.
  emu.setLatency(20);
  emu.addFault({route: 'teardown', status: 503, times: 4});
  jobs = await Promise.all(
    Array.from({length: RUNS}, (_, i) =>
      runJob({
        action: ACTIONS[i % ACTIONS.length]!,
        emu,
        // What is tested is isolation, not speed: on a loaded 2-core machine several runs at once can take
        // longer than the kit's default timeout to assign and poll (seen: a 6.5 s assignment), so allow 2 min
        // (and the harness a little more).
        inputs: {'profile-name': 'shared', timeout: '120000'},
        // Nor is the teardown budget tested here: main's default, not the kit's short one, for the refused teardowns.
        env: {[Env.TeardownTimeoutMs]: '15000'},
        timeoutMs: 150_000
      })
    )
  );
}, 240_000);

afterAll(async () => {
  jobs.forEach(removeJob);
  await emu?.close();
  reportScan('concurrency');
});

/** Builder ids a job's own logs say it tore down (main and post). */
function tornDownBy(job: JobResult): string[] {
  const text = [job.main?.stdout ?? '', ...job.posts.map(p => p.stdout)].join('\n');
  return [...text.matchAll(/Builder (bld_\w+) (torn down|was already gone)/g)].map(m => m[1] as string);
}

describe(`${RUNS} parallel runs on one profile`, () => {
  test('every run succeeded and was assigned its own builders', () => {
    for (const job of jobs) {
      // The whole log in the failure message: a diff of {exit} alone would hide why a run failed.
      if (job.main?.exitCode !== 0) throw new Error(`a run failed (exit ${job.main?.exitCode}):\n${describeJob(job)}`);
      expect(job.state?.builderIds).toHaveLength(2);
    }
    const all = jobs.flatMap(j => j.state?.builderIds ?? []);
    expect(new Set(all).size).toBe(RUNS * 2);
    expect(emu.ledger()).toHaveLength(RUNS * 2);
  });

  test.each(Array.from({length: RUNS}, (_, i) => [i]))('run %i tore down exactly its own builders', i => {
    const job = jobs[i] as JobResult;
    const own = job.state?.builderIds ?? [];
    expect(tornDownBy(job).sort()).toEqual([...own].sort());
    for (const id of own) {
      const entry = emu.ledger().find(e => e.builderId === id);
      expect(entry?.reason).toBe('teardown');
    }
    // The whole log in the failure message, as above.
    if (job.buildersLeft.length > 0) throw new Error(`buildx builders left: ${job.buildersLeft}\n${describeJob(job)}`);
    expect(job.certs.leftAfterPost).toBe(false);
    expect(job.leaks).toEqual([]);
    expect(job.posts[0]?.exitCode).toBe(0);
  });

  test('each builder was torn down by one successful request, and none is left assigned', () => {
    const ok = emu.requests().filter(r => r.route === 'teardown' && r.status === 200);
    expect(ok.map(r => r.builderId).sort()).toEqual(jobs.flatMap(j => j.state?.builderIds ?? []).sort());
    // No teardown ever met a builder already gone: no run touched another run's builders.
    expect(emu.requests().filter(r => r.route === 'teardown' && r.status === 404)).toEqual([]);
    expect(emu.assignedBuilders()).toEqual([]);
  });
});
