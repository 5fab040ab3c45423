// Bad inputs: each fails main before anything is assigned (the ledger and the request log stay empty),
// with a message that names the input and the fix, and post has nothing to clean up. One emulator for the
// whole file: if any case assigned a builder, every later ledger check would see it. What is proved here is that
// each action reads each input before assigning and fails with the parser's message as its error annotation,
// nothing shown that must not be: one bad value per input. The parsers' other refusals (each malformed timeout,
// profile list, URL, platform, call) are core's and the actions' unit tests (inputs.test.ts, input-checks.test.ts).
// An input every action reads through core (profile-name, timeout, api-url, api-key, ...) is checked on one
// action, configure, build-push and bake in turn (oneEach, kit/actions.ts); an input of some actions only, on
// each of them.
import {afterAll, beforeAll, describe, expect, test} from '@jest/globals';
import type {Emulator} from '@remote-builder-actions/emulator';
import {ACTIONS, BUILD_PUSH, oneEach, requireBundles, type ActionUnderTest} from './kit/actions.js';
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

const CASES: BadInput[] = oneEach<BadInput>([
  {
    id: 'profile-name empty',
    job: {inputs: {'profile-name': ''}},
    error: /Input "profile-name": is required: set it to the name of a builder profile from the web UI/
  },
  {
    id: 'timeout not a number',
    job: {inputs: {timeout: 'ten minutes'}},
    error: /Input "timeout": "ten minutes" is not a number of milliseconds: use a whole number such as \d+/
  },
  {
    id: 'api-url carrying credentials (never echoed)',
    job: {inputs: {'api-url': 'https://robot:hunter2-secret-pw@api.example.com'}},
    error: /Input "api-url": must not contain credentials: pass the key as api-key/,
    neverShown: 'hunter2-secret-pw'
  },
  {
    id: 'api-url missing (no input, no REMOTE_BUILDER_API_URL)',
    job: {without: ['api-url']},
    error: /Input "api-url": is required: set the api-url input or the REMOTE_BUILDER_API_URL environment variable/
  },
  {
    id: 'credentials missing (no api-key, no REMOTE_BUILDER_API_KEY, not on a service runner)',
    job: {without: ['api-key']},
    error:
      /Input "api-key": is required outside the service's own runners: pass a secret, e.g. "api-key: \$\{\{ secrets.REMOTE_BUILDER_API_KEY \}\}", or set REMOTE_BUILDER_API_KEY/
  },
  {
    id: 'api-key with a zero-width space from copy-paste: refused as bad input, not sent (never echoed)',
    job: {inputs: {'api-key': 'rb_key_part_one\u200brb_key_part_two'}},
    error:
      /Input "api-key": contains a zero-width space \(U\+200B\) at character 16 of 31: an API key is visible ASCII only; copy it again from the web UI/,
    neverShown: 'rb_key_part_one'
  },
  {
    id: 'REMOTE_BUILDER_REQUEST_TIMEOUT_MS malformed',
    job: {env: {REMOTE_BUILDER_REQUEST_TIMEOUT_MS: 'fast'}},
    error:
      /Input "REMOTE_BUILDER_REQUEST_TIMEOUT_MS": "fast" is not a request time limit: use a whole number of milliseconds from 1 to 600000/
  },
  {
    id: 'configure: use not a boolean',
    appliesTo: a => a.name === 'configure',
    job: {inputs: {use: 'maybe'}},
    error: /Input "use": "maybe" is not a boolean: use true or false/
  },
  {
    id: 'configure: setup-buildx not a boolean',
    appliesTo: a => a.name === 'configure',
    job: {inputs: {'setup-buildx': 'nah'}},
    error: /Input "setup-buildx": "nah" is not a boolean: use true or false/
  },
  {
    id: 'push not a boolean',
    appliesTo: a => a.builds,
    job: {inputs: {push: 'yes'}},
    error: /Input "push": "yes" is not a boolean: use true or false/
  },
  {
    id: 'platforms "linux//arm64"',
    appliesTo: a => a.platforms,
    job: {inputs: {platforms: 'linux/amd64,linux//arm64'}},
    error:
      /Input "platforms": "linux\/\/arm64" is not a platform: use os\/arch\[\/variant\], e.g. linux\/amd64 or linux\/arm64/
  },
  {
    id: 'call an unknown method',
    appliesTo: a => a.call,
    job: {inputs: {call: 'bogus'}},
    error:
      /Input "call": "bogus" is not a build method: use build, check, outline, targets \(or leave it empty to build\)/
  },
  {
    id: 'docker buildx missing or broken: refused before anything is assigned',
    job: {env: {FAKE_DOCKER_FAIL: 'version'}},
    error: /buildx.*fake docker: version failed as requested/
  },
  {
    id: 'bake: files names a file that does not exist (bake --print fails): refused before anything is assigned',
    appliesTo: a => a.name === 'bake',
    job: {inputs: {files: 'no-such-bake.hcl'}},
    error: /Failed to resolve the bake definition \(docker buildx bake .*--print\)/
  },
  {
    id: 'fallback not a mode',
    appliesTo: a => a.fallback,
    job: {inputs: {fallback: 'remote'}},
    error:
      /Input "fallback": "remote" is not a fallback: use none \(fail when no remote builder can be had\) or local \(build on this runner instead\)/
  }
]);

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

  // The counterpart of buildx-version.faults.test.ts's buildx 0.12 case, on the action that checks the pair
  // (kit/actions.ts checksPushAndLoad).
  test('build-push: push and load together with buildx 0.13: accepted (two exporters), built on the assigned builder', async () => {
    const own = await startEmulator();
    try {
      const job = await runJob({action: BUILD_PUSH, emu: own, inputs: {push: 'true', load: 'true'}});
      try {
        expect({exit: job.main?.exitCode, log: describeJob(job)}).toMatchObject({exit: 0});
        const build = job.dockerCalls.find(argv => argv[1] === 'build') ?? [];
        expect(build).toEqual(expect.arrayContaining(['--push', '--load']));
        expect(own.assignedBuilders()).toEqual([]);
      } finally {
        removeJob(job);
      }
    } finally {
      await own.close();
    }
  });
});
