// The example workflows under examples/ run here as the runner would run them: each job's steps through the
// runner harness (our actions from their action.yml, with the bundles in dist/; `run:` steps with bash),
// against the emulator with the recording fake docker. Each must succeed, set its outputs, and leave every
// builder it was assigned torn down. The examples are also linted against the actions' action.yml, and
// .github/workflows/examples.yml (which runs them on GitHub's runner) must be what kit/examples-ci.ts makes.
import {mkdtempSync, readFileSync, rmSync, existsSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, test} from '@jest/globals';
import {parse} from 'yaml';
import {Emulator} from '@remote-builder-actions/emulator';
import {FAKE_DOCKER_BIN, requireBundles} from './kit/actions.js';
import {EXAMPLES_WORKFLOW, examplesWorkflow} from './kit/examples-ci.js';
import {runExampleJob} from './kit/examples-job.js';
import {EXAMPLE_SETUPS, EXAMPLES_API_KEY, EXAMPLES_API_KEYS, EXAMPLES_PROFILES} from './kit/examples-setup.js';
import {lintWorkflow, loadExamples, type Workflow} from './kit/examples-workflow.js';
import {reportScan, scanSteps, secretsOf} from './kit/secret-scan.js';

const examples = loadExamples();

beforeAll(() => requireBundles());
afterAll(() => reportScan('examples'));

describe('the examples are well-formed', () => {
  test('there are examples, and each has a setup entry (and each entry an example)', () => {
    expect(examples.map(e => e.id)).toEqual(
      expect.arrayContaining(['build-push', 'multi-arch', 'bake', 'configure-custom-step', 'fallback'])
    );
    expect(examples.map(e => e.id).sort()).toEqual(Object.keys(EXAMPLE_SETUPS).sort());
  });

  test.each(examples.map(e => [e.id, e] as const))('%s: every uses and with: key matches an action.yml', (_, e) => {
    expect(lintWorkflow(e.workflow, `examples/${e.id}.yml`)).toEqual([]);
  });

  test('the lint refuses an input the action does not have, a missing required input and an unknown action', () => {
    const base = examples.find(e => e.id === 'configure-custom-step')!.workflow;
    const broken = structuredClone(base) as Workflow;
    const steps = broken.jobs['image']!.steps;
    const configure = steps.find(s => s.id === 'builder')!;
    configure.with = {...configure.with, 'api-ur': 'https://typo.example'};
    delete configure.with['profile-name'];
    steps.push({uses: 'someone/else@v1'});
    expect(lintWorkflow(broken, 'broken.yml')).toEqual([
      'broken.yml job image step 2 (builder): "api-ur" is not an input of actions/configure (see its action.yml)',
      'broken.yml job image step 2 (builder): required input "profile-name" is missing',
      expect.stringMatching(/^broken\.yml job image step 4: uses "someone\/else@v1": use \.\/actions\/<name>/)
    ]);
  });

  test('.github/workflows/examples.yml is what kit/examples-ci.ts generates from the examples', () => {
    const committed = parse(readFileSync(EXAMPLES_WORKFLOW, 'utf8')) as unknown;
    // Regenerate: npx tsx packages/emulator/__faults__/kit/examples-ci.ts && npx prettier --write .github/workflows/examples.yml
    expect(committed).toEqual(examplesWorkflow(examples));
  });

  test('the CI workflow runs our actions only in the local form, and never with the placeholder owner', () => {
    const text = readFileSync(EXAMPLES_WORKFLOW, 'utf8');
    expect(text).not.toContain('<owner>');
    expect(text).not.toMatch(/vars\.REMOTE_BUILDER_API_URL|secrets\.REMOTE_BUILDER_API_KEY/);
    expect(text).toMatch(/uses: \.\/actions\/build-push/);
  });
});

const jobs = examples.flatMap(e =>
  Object.keys(e.workflow.jobs).map(jobId => [`${e.id} (${jobId})`, e, jobId] as const)
);

describe('each example runs against the emulator', () => {
  test.concurrent.each(jobs)('%s', async (_, example, jobId) => {
    const setup = EXAMPLE_SETUPS[example.id]!;
    const emu = await Emulator.start({profiles: EXAMPLES_PROFILES, apiKeys: EXAMPLES_API_KEYS});
    const work = mkdtempSync(join(tmpdir(), `examples-${example.id}-`));
    try {
      for (const f of setup.faults ?? []) emu.addFault(f);
      const fakeDocker = join(work, 'docker');
      const run = await runExampleJob({
        example,
        jobId,
        setup,
        emu,
        apiKey: EXAMPLES_API_KEY,
        workDir: work,
        env: {
          PATH: `${FAKE_DOCKER_BIN}:${process.env['PATH'] ?? ''}`,
          FAKE_DOCKER_DIR: fakeDocker,
          DOCKER_CONFIG: join(work, 'docker-config')
        }
      });

      // Every step succeeded (posts too), and no step was skipped for a failure.
      expect({failed: run.failedStep, log: run.log}).toMatchObject({failed: ''});
      const ran = run.steps.filter(s => s.result !== undefined);
      for (const s of ran) expect(s.result?.annotations.filter(a => a.level === 'error')).toEqual([]);
      // The example's own steps and the post steps of ours all ran.
      expect(ran.some(s => s.hook === 'post')).toBe(true);

      for (const [id, names] of Object.entries(setup.outputs)) {
        for (const name of names) {
          const output = `${id}.${name}`;
          expect({output, value: run.outputs[id]?.[name] ?? ''}).toMatchObject({
            output,
            value: expect.stringMatching(/\S/)
          });
        }
      }
      for (const w of setup.warnings ?? []) {
        expect(run.warnings).toEqual(expect.arrayContaining([expect.stringMatching(w)]));
      }
      if (!setup.warnings) expect(run.warnings).toEqual([]);

      // Billing: exactly the builders expected, every one torn down after the job.
      expect(emu.ledger()).toHaveLength(setup.assigned);
      expect(emu.assignedBuilders()).toEqual([]);
      // The example's build ran, as written.
      const calls = existsSync(join(fakeDocker, 'calls.jsonl'))
        ? readFileSync(join(fakeDocker, 'calls.jsonl'), 'utf8')
            .trim()
            .split('\n')
            .map(l => (JSON.parse(l) as {argv: string[]}).argv.join(' '))
        : [];
      expect(calls).toEqual(expect.arrayContaining([expect.stringMatching(setup.build)]));
      // No buildx builder left on the "runner".
      const store = join(fakeDocker, 'builders.json');
      const left = existsSync(store) ? Object.keys(JSON.parse(readFileSync(store, 'utf8')) as object) : [];
      expect(left).toEqual([]);

      // Neither the API key nor a client key in any step's output.
      const leaks = scanSteps(
        ran.map(s => ({label: `${s.label} ${s.hook}`, result: s.result!})),
        secretsOf([EXAMPLES_API_KEY], emu.issuedClientKeys())
      );
      expect(leaks).toEqual([]);
    } finally {
      await emu.close();
      rmSync(work, {recursive: true, force: true});
    }
  });
});
