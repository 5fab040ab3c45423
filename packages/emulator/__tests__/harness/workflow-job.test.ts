import {existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, test} from '@jest/globals';
import {Emulator} from '../../src/emulator.js';
import {formatJobReport} from '../../src/harness/job-report.js';
import {LogMasker} from '../../src/harness/log-masker.js';
import {readWorkflow, REPO_ROOT, type Workflow} from '../../src/harness/workflow-file.js';
import {planJob, runWorkflowJob, type JobEvent, type WorkflowJobResult} from '../../src/harness/workflow-job.js';
import {fixture} from './fixture.js';

const EXAMPLE = join(REPO_ROOT, 'examples/configure-custom-step.yml');

/** A one-job workflow whose job or step has `extra`. */
function workflow(job: Record<string, unknown> = {}, step: Record<string, unknown> = {}): Workflow {
  return {
    name: 'w',
    on: 'push',
    jobs: {build: {'runs-on': 'ubuntu-latest', steps: [{run: 'true', ...step}], ...job}}
  } as Workflow;
}

describe('planJob', () => {
  test('plans an example: checkout skipped, our action from its action.yml, run: steps', () => {
    const plan = planJob(readWorkflow(EXAMPLE), 'examples/configure-custom-step.yml');
    expect(plan.jobId).toBe('image');
    expect(plan.steps.map(s => [s.kind, s.label])).toEqual([
      ['skip', 'actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1'],
      ['action', 'builder'],
      ['run', 'Build on the remote builder']
    ]);
    const configure = plan.steps[1];
    expect(configure?.kind === 'action' && configure.manifest.mainScript).toBe(
      join(REPO_ROOT, 'dist/configure/main/index.js')
    );
  });

  // prettier-ignore
  test.each([
    [1, workflow({strategy: {matrix: {os: ['a', 'b']}}}), /job build: "strategy:" \(matrix\) is not supported by the runner harness: write one combination's values/],
    [2, workflow({needs: 'other'}), /job build: "needs:" is not supported/],
    [3, workflow({}, {if: 'always()'}), /job build step 1: "if:" is not supported/],
    [4, workflow({}, {shell: 'pwsh'}), /"shell: pwsh" is not supported by the runner harness: run: steps run with bash$/],
    [5, workflow({}, {run: undefined, uses: 'actions/setup-node@v4'}), /"uses: actions\/setup-node@v4" is not supported by the runner harness: it runs this repository's actions/],
    [6, workflow({}, {run: 'echo ${{ toJSON(github) }}'}), /the expression \$\{\{ toJSON\(github\) \}\} is not supported/],
    [7, {...workflow(), jobs: {a: workflow().jobs['build']!, b: workflow().jobs['build']!}}, /has 2 jobs \(a, b\): pick one with --job/],
    [8, {...workflow(), defaults: {run: {shell: 'sh'}}} as Workflow, /top-level "defaults:" is not supported/]
  ])('%i: refuses in one line', (_n, w, message) => {
    expect(() => planJob(w, 'w.yml')).toThrow(message);
  });
});

describe('runWorkflowJob: an example against the emulator, with the fake docker', () => {
  const API_KEY = 'rb_harness_job_key_8c1e4f';
  let emu: Emulator;
  let work: string;
  let job: WorkflowJobResult;
  const events: string[] = [];
  const masker = new LogMasker();

  beforeAll(async () => {
    for (const hook of ['main', 'post']) {
      const f = join(REPO_ROOT, 'dist/configure', hook, 'index.js');
      if (!existsSync(f)) throw new Error(`${f} is missing: run \`npm run bundle\` first`);
    }
    emu = await Emulator.start({
      profiles: [{name: 'my-profile', readyDelayMs: 100}],
      apiKeys: [{key: API_KEY, scopes: ['builders']}]
    });
    work = mkdtempSync(join(tmpdir(), 'harness-workflow-job-'));
    const workspace = join(work, 'repo');
    job = await runWorkflowJob({
      workflow: readWorkflow(EXAMPLE),
      file: 'examples/configure-custom-step.yml',
      secrets: {REMOTE_BUILDER_API_KEY: API_KEY},
      vars: {REMOTE_BUILDER_API_URL: emu.url},
      env: {
        PATH: `${join(REPO_ROOT, 'packages/emulator/fake-docker')}:${process.env['PATH'] ?? ''}`,
        FAKE_DOCKER_DIR: join(work, 'fake-docker'),
        DOCKER_CONFIG: join(work, 'docker-config')
      },
      workDir: join(work, 'job'),
      workspace,
      masker,
      timeoutMs: 60_000,
      onCheckout: dir => writeFileSync(join(dir, 'Dockerfile'), 'FROM scratch\n'),
      onEvent: (e: JobEvent) => {
        if (e.type !== 'line') events.push(`${e.type} ${e.step.hook} ${e.step.label}`);
      }
    });
  }, 120_000);

  afterAll(async () => {
    await emu?.close();
    if (work) rmSync(work, {recursive: true, force: true});
  });

  test('every step ran in order, post last, and the job succeeded', () => {
    expect(job.failedStep).toBe('');
    expect(job.steps.map(s => [s.hook, s.label, s.skipped === undefined ? s.result?.exitCode : 'skipped'])).toEqual([
      ['main', 'actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1', 'skipped'],
      ['main', 'builder', 0],
      ['main', 'Build on the remote builder', 0],
      ['post', 'builder', 0]
    ]);
    expect(events).toEqual([
      'start main actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1',
      'end main actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1',
      'start main builder',
      'end main builder',
      'start main Build on the remote builder',
      'end main Build on the remote builder',
      'start post builder',
      'end post builder'
    ]);
    // The workflow-level env (from vars) gave the action its API URL; post tore the builder down.
    expect(emu.ledger()).toHaveLength(1);
    expect(emu.assignedBuilders()).toEqual([]);
  });

  test("outputs flowed into the run: step's docker command", () => {
    const name = job.outputs['builder']?.['name'];
    expect(name).toMatch(/^remote-builder-/);
    const calls = readFileSync(join(work, 'fake-docker', 'calls.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map(l => JSON.parse(l) as {argv: string[]; cwd: string})
      .map(c => `${c.cwd}: ${c.argv.join(' ')}`);
    // In the given workspace (GITHUB_WORKSPACE), where the skipped checkout's hook wrote the Dockerfile.
    expect(job.workspace).toBe(join(work, 'repo'));
    expect(readFileSync(join(work, 'repo', 'Dockerfile'), 'utf8')).toBe('FROM scratch\n');
    expect(calls).toContain(
      `${join(work, 'repo')}: buildx build --builder ${name} --platform linux/amd64 --tag app:test .`
    );
    const run = job.steps[2]?.result;
    expect(run?.stdout).toContain(`Built on ${job.outputs['builder']?.['builder-ids']}, ready after`);
  });

  test('the job summary renders as text, with nothing secret in it', () => {
    const text = formatJobReport(job, {masker, simulated: true}).join('\n');
    expect(text).toMatch(/── builder: configure \(post\) ──\n {2}Remote builders: configure\n {2}═+/);
    expect(text).toMatch(/^ {2}steps\.builder\.outputs\.name=remote-builder-/m);
    expect(text).toMatch(/Job image succeeded\.$/);
    // Rendered: no Markdown heading, HTML tag or table rule is left.
    expect(text).not.toMatch(/^\s*#|<\/?(table|tr|td|th|h\d|p)>|\|\s*-{3}/m);
    expect(text).not.toContain(API_KEY);
    // The job had builders, so there are keys to look for.
    expect(emu.issuedClientKeys().length).toBeGreaterThan(0);
    for (const key of emu.issuedClientKeys()) {
      for (const line of key.split('\n').filter(l => l.length > 20)) expect(text).not.toContain(line);
    }
  });
});

describe('runWorkflowJob: actionEnv', () => {
  test("action steps get the artifact service's variables, run: steps do not, and the token is masked", async () => {
    const root = mkdtempSync(join(tmpdir(), 'harness-action-env-'));
    try {
      mkdirSync(join(root, 'actions', 'probe'), {recursive: true});
      writeFileSync(
        join(root, 'actions', 'probe', 'action.yml'),
        `name: probe\nruns:\n  using: node24\n  main: ${JSON.stringify(fixture('report-env.mjs'))}\n`
      );
      const token = 'runtime-token-7f3a9c41e2';
      const jobMasker = new LogMasker();
      const job = await runWorkflowJob({
        workflow: workflow({}, {id: 'act', uses: './actions/probe', run: undefined}),
        file: 'w.yml',
        root,
        workDir: join(root, 'job'),
        actionEnv: {ACTIONS_RESULTS_URL: 'http://127.0.0.1:9/', ACTIONS_RUNTIME_TOKEN: token},
        masker: jobMasker
      });
      const shell = await runWorkflowJob({
        workflow: workflow({}, {id: 'sh', run: 'echo "seen=${ACTIONS_RUNTIME_TOKEN:-none}" >> "$GITHUB_OUTPUT"'}),
        file: 'w.yml',
        root,
        workDir: join(root, 'job-2'),
        actionEnv: {ACTIONS_RESULTS_URL: 'http://127.0.0.1:9/', ACTIONS_RUNTIME_TOKEN: token}
      });

      const env = JSON.parse(job.outputs.act?.env ?? '{}') as Record<string, string>;
      expect([env.ACTIONS_RESULTS_URL, env.ACTIONS_RUNTIME_TOKEN]).toEqual(['http://127.0.0.1:9/', token]);
      expect(shell.outputs.sh?.seen).toBe('none');
      expect(jobMasker.mask(`token ${token}`)).toBe('token ***');
    } finally {
      rmSync(root, {recursive: true, force: true});
    }
  });
});
