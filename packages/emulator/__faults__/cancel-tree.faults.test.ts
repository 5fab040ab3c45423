// A cancelled run whose docker leaves a stubborn process behind (buildx is the docker CLI's child): the fake
// docker's build starts a child that ignores SIGTERM and SIGINT and holds its stdout. The runner cancels
// (SIGINT, SIGTERM at +7.5 s, kill at +10 s): main must stop the whole docker process tree, tear the builder
// down and exit on its own inside that window, and leave no process behind.
import {afterAll, beforeAll, describe, expect, test} from '@jest/globals';
import {readFileSync} from 'node:fs';
import {KILL_GRACE_MS} from '@remote-builder-actions/core';
import {BUILD_PUSH, requireBundles} from './kit/actions.js';
import {describeJob, runScenario, type Scenario} from './kit/scenario.js';
import {reportScan} from './kit/secret-scan.js';

/** actions/runner ProcessInvoker: SIGINT, then SIGTERM 7.5 s later, then the kill 2.5 s after that. */
const RUNNER_KILL_AFTER_MS = 10_000;
const STUBBORN = /stubborn child (\d+) holds stdout/;

/** No such process, or a zombie (dead, not yet reaped by whoever inherited it). */
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

/** Polls until the process is gone; false if it is still there after `withinMs`. */
async function goneWithin(pid: number, withinMs = 5000): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (!gone(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise(resolve => setTimeout(resolve, 20));
  }
  return true;
}

beforeAll(() => requireBundles([BUILD_PUSH]));
afterAll(() => reportScan('cancel-tree'));

describe('cancellation stops the whole docker process tree', () => {
  test('build-push: SIGINT while a stubborn docker child holds the pipes: main ends on its own, torn down, child gone', async () => {
    let stubbornPid = 0;
    const scenario: Scenario = {
      id: 'stubborn docker child',
      job: {
        env: {FAKE_DOCKER_BUILD_STUBBORN_CHILD: '1'},
        // Once the child says its handlers are set, so that only a SIGKILL can stop it.
        mainSignals: [{signal: 'SIGINT', whenOutputMatches: STUBBORN}],
        cancelLikeRunner: true
      },
      expect: {
        exit: 1,
        error: /Cancelled by SIGINT during the build; the build was stopped/,
        assigned: 1,
        also: ({job}) => {
          const main = job.main;
          if (!main) throw new Error('main did not run');
          const log = describeJob(job);
          stubbornPid = Number(STUBBORN.exec(main.stdout)?.[1] ?? 0);
          expect({reported: stubbornPid > 0, log}).toMatchObject({reported: true});
          // main exited by itself: no tree kill by the runner, and inside the runner's window.
          expect({signal: main.signal, sent: main.signalsSent.map(s => `${s.signal}/${s.reason}`), log}).toMatchObject({
            signal: null,
            sent: expect.not.arrayContaining(['SIGKILL/escalation', 'SIGKILL/timeout'])
          });
          const sigint = main.signalsSent.find(s => s.signal === 'SIGINT');
          expect(sigint).toBeDefined();
          const afterSigint = main.durationMs - (sigint?.atMs ?? 0);
          // It waited for the SIGKILL of the docker group (the child ignores SIGTERM), and no longer than the window.
          expect(afterSigint).toBeGreaterThanOrEqual(KILL_GRACE_MS - 100);
          expect(afterSigint).toBeLessThan(RUNNER_KILL_AFTER_MS);
          // main itself tore the builder down (post found nothing left to bill: runScenario checks the ledger).
          expect(main.stdout).toMatch(/Tore down bld_\w+/);
        }
      }
    };
    try {
      await runScenario(scenario, BUILD_PUSH);
      // SIGKILLed with the docker process group, not left running after the step.
      expect(await goneWithin(stubbornPid)).toBe(true);
    } finally {
      // Whatever failed above, leave no 120 s process behind.
      if (stubbornPid > 0 && !gone(stubbornPid)) process.kill(stubbornPid, 'SIGKILL');
    }
  });
});
