// Bad inputs: each fails main before anything is assigned (the ledger and the request log stay empty),
// with a message that names the input and the fix, and post has nothing to clean up. One emulator for the
// whole file: if any case assigned a builder, every later ledger check would see it. What is proved here is that
// each bundle reads its inputs before assigning and fails with the parser's message as its error annotation, a
// secret in a bad value shown nowhere, and post with no state. One case per action: the two secrets (api-url's
// credentials, an api-key with a zero-width space) and bake's own local check (its definition, by docker). Every
// other refusal is the parsers' and the actions' in-process: core's inputs.test.ts (profile-name, timeout,
// api-url missing, credentials missing) and inputs-fallback-timeout.test.ts (REMOTE_BUILDER_REQUEST_TIMEOUT_MS,
// fallback), configure's context.test.ts (use, setup-buildx), build-push's and bake's context.test.ts (push),
// build-push's input-checks.test.ts (platforms, call), buildx/buildx-unavailable.test.ts (docker buildx missing).
import {afterAll, beforeAll, describe, expect, test} from '@jest/globals';
import type {Emulator} from '@remote-builder-actions/emulator';
import {ACTIONS, requireBundles, type ActionUnderTest} from './kit/actions.js';
import {removeJob, runJob, startEmulator, type JobOpts} from './kit/job.js';
import {describeJob} from './kit/scenario.js';
import {reportScan} from './kit/secret-scan.js';

interface BadInput {
  id: string;
  appliesTo?: (a: ActionUnderTest) => boolean;
  job: Omit<JobOpts, 'action' | 'emu'>;
  /** The error annotation: names the input and says what to do. */
  error: RegExp;
  /** Text that must not appear in any output (a secret in a bad value). */
  neverShown?: string;
}

const CASES: BadInput[] = [
  {
    id: 'api-url carrying credentials (never echoed)',
    appliesTo: a => a.name === 'configure',
    job: {inputs: {'api-url': 'https://robot:hunter2-secret-pw@api.example.com'}},
    error: /Input "api-url": must not contain credentials: pass the key as api-key/,
    neverShown: 'hunter2-secret-pw'
  },
  {
    id: 'api-key with a zero-width space from copy-paste: refused as bad input, not sent (never echoed)',
    appliesTo: a => a.name === 'build-push',
    job: {inputs: {'api-key': 'rb_key_part_one\u200brb_key_part_two'}},
    error:
      /Input "api-key": contains a zero-width space \(U\+200B\) at character 16 of 31: an API key is visible ASCII only; copy it again from the web UI/,
    neverShown: 'rb_key_part_one'
  },
  {
    id: 'bake: files names a file that does not exist (bake --print fails): refused before anything is assigned',
    appliesTo: a => a.name === 'bake',
    job: {inputs: {files: 'no-such-bake.hcl'}},
    error: /Failed to resolve the bake definition \(docker buildx bake .*--print\)/
  }
];

const RUNS = ACTIONS.flatMap(a =>
  CASES.filter(c => c.appliesTo?.(a) ?? true).map((c): [string, string, BadInput, ActionUnderTest] => [
    a.name,
    c.id,
    c,
    a
  ])
);

let emu: Emulator;
beforeAll(async () => {
  requireBundles();
  emu = await startEmulator();
});
afterAll(async () => {
  const ledger = emu?.ledger() ?? [];
  const requests = emu?.requests() ?? [];
  await emu?.close();
  console.log(`bad input: ${CASES.length} cases, ${RUNS.length} runs over ${ACTIONS.map(a => a.name).join(', ')}`);
  reportScan('bad-input');
  // Nothing assigned, nothing asked, across every case: the service never heard of these runs.
  expect({ledger, requests}).toEqual({ledger: [], requests: []});
});

describe('bad input fails before any assignment, naming the input and the fix', () => {
  test.concurrent.each(RUNS)('%s: %s', async (_name, _id, c, action) => {
    const job = await runJob({action, emu, ...c.job});
    try {
      const log = describeJob(job);
      expect({exit: job.main?.exitCode, log}).toMatchObject({exit: 1});
      expect(job.error).toMatch(c.error);
      // Nothing assigned, nothing asked: the service never heard of this run.
      expect(job.state).toBeUndefined();
      // Only local checks ran: buildx version, and bake's definition (bake --print).
      expect(job.dockerCalls.filter(argv => argv[1] !== 'version' && !argv.includes('--print'))).toEqual([]);
      expect(job.posts[0]?.exitCode).toBe(0);
      expect(job.posts[0]?.stdout).toMatch(/Nothing to clean up/);
      expect(job.leaks).toEqual([]);
      if (c.neverShown) expect(log).not.toContain(c.neverShown);
    } finally {
      removeJob(job);
    }
  });
});
