// The demo: three GitHub jobs against the embedded emulator, each step a child process started by the runner
// harness from the committed bundles (dist/<action>/{main,post}/index.js), as a runner would:
//   1. configure, then a custom step that runs `docker buildx build` on the builder it set up, then its post;
//   2. build-push (main builds a two-platform image, post finds nothing left);
//   3. bake (two targets from a docker-bake.hcl).
// Then each job's summary as text and the billing ledger. With a dockerd + buildx here, the builders proxy to
// its BuildKit and the images are really built; otherwise the recording fake docker stands in, and the demo
// says so before the first job and in its last lines.
import {spawn} from 'node:child_process';
import {existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {delimiter, join, relative} from 'node:path';
import {Emulator} from '../emulator.js';
import {jobDirs, runAction, type ActionRunResult} from '../harness/index.js';
import {LineSplitter} from '../harness/line-splitter.js';
import {prependPathValue} from '../harness/runner-env.js';
import type {LedgerEntry} from '../ledger.js';
import {PRICE_PER_MINUTE_USD} from '../pricing.js';
import {probeDocker, type DockerProbe} from './docker-probe.js';
import {alignTable} from './align-table.js';
import {StepLog} from './step-log.js';
import {summaryToText} from './summary-text.js';

const DEMO_API_KEY = 'demo-api-key';
const DEMO_PROFILE = {
  name: 'demo',
  architectures: ['amd64', 'arm64'] as ('amd64' | 'arm64')[],
  buildersPerAssignment: 2,
  readyDelayMs: 1000,
  size: '16x32' as const
};
/** For the bake job, whose targets are all linux/amd64: one builder, not two (a builder idle for the job is billed). */
const DEMO_AMD64_PROFILE = {
  name: 'demo-amd64',
  architectures: ['amd64'] as ('amd64' | 'arm64')[],
  buildersPerAssignment: 1,
  readyDelayMs: 1000,
  size: '16x32' as const
};
const PLATFORMS = 'linux/amd64,linux/arm64';

export interface DemoOpts {
  /** The repository root (dist/, packages/emulator/fake-docker, .e2e/). */
  root: string;
  /** Receives every line the demo prints; default console.log. */
  out?: (line: string) => void;
  /** 'fake' uses the fake docker even when a dockerd is here; default 'auto'. */
  docker?: 'auto' | 'fake';
  /** Show the steps' `::debug::` lines (once each), as a runner does with ACTIONS_STEP_DEBUG; default false. */
  debug?: boolean;
  /** Finds a real dockerd + buildx; default probeDocker. */
  probe?: (root: string) => DockerProbe;
}

export interface DemoStep {
  job: string;
  /** e.g. 'configure (main)', 'run: docker buildx build'. */
  title: string;
  exitCode: number | null;
  ok: boolean;
  durationMs: number;
  /** GITHUB_STEP_SUMMARY text ('' when none). */
  summary: string;
}

export interface DemoResult {
  /** Every step succeeded and every builder was torn down. */
  ok: boolean;
  /** The fake docker stood in for docker/buildx. */
  simulated: boolean;
  steps: DemoStep[];
  /** The ledger before the emulator closed. */
  ledger: LedgerEntry[];
  /** Builder ids per job, from each main step's saved state. */
  buildersByJob: Record<string, string[]>;
  wallMs: number;
}

/** Runs the three jobs and prints them; see the file comment. Throws only when the bundles are missing. */
export async function runDemo(opts: DemoOpts): Promise<DemoResult> {
  const started = performance.now();
  const out = opts.out ?? ((line: string) => console.log(line));
  for (const action of ['configure', 'build-push', 'bake']) {
    for (const hook of ['main', 'post']) {
      const f = join(opts.root, 'dist', action, hook, 'index.js');
      if (!existsSync(f)) throw new Error(`${f} is missing: run \`npm run bundle\` first`);
    }
  }
  const docker: DockerProbe =
    opts.docker === 'fake' ? {real: false, reason: 'the fake docker was asked for'} : (opts.probe ?? probe)(opts.root);
  const simulated = !docker.real;
  const root = mkdtempSync(join(tmpdir(), 'remote-builder-demo-'));
  const emulatorLog: string[] = [];

  out('remote-builder demo: the configure, build-push and bake actions (the committed dist/ bundles) run as');
  out('GitHub job steps, each a child process, against an embedded emulator of the remote-builder service.');
  if (docker.real) {
    out(`REAL BUILDS: the emulator's builders proxy to the BuildKit of the dockerd at ${docker.socket};`);
    out('the images are really built (exported to local folders, nothing is pushed).');
  } else {
    out(`SIMULATED BUILDS (${docker.reason}): docker and buildx are the recording fake docker`);
    out('(packages/emulator/fake-docker), so no image is really built. The service side is real: assignment,');
    out('readiness, mutual-TLS endpoints, teardown and billing come from the emulator.');
  }

  // With a real dockerd, every builder is its one BuildKit: two nodes of one build there collide (buildx >= 0.16
  // gives each node of a build the same build ref: "job ID … exists"), so both platforms go to one multi-arch
  // builder. The fake docker has no such limit: a native builder per platform, as the service gives.
  const demoProfile = docker.real ? {...DEMO_PROFILE, buildersPerAssignment: 1} : DEMO_PROFILE;
  const emu = await Emulator.start({
    profiles: [demoProfile, DEMO_AMD64_PROFILE],
    apiKeys: [{key: DEMO_API_KEY, scopes: ['builders']}],
    log: line => emulatorLog.push(line),
    dockerSocket: docker.real ? docker.socket : undefined
  });
  const demoBuilders = docker.real
    ? `1 multi-arch builder (amd64,arm64, size ${DEMO_PROFILE.size}, priced twice) to configure and build-push, ` +
      `which build for ${PLATFORMS} (one dockerd here: two nodes on its one BuildKit would collide)`
    : `2 builders (amd64 + arm64, size ${DEMO_PROFILE.size}) to configure and build-push, which build for ` +
      `${PLATFORMS} (a native node per platform)`;
  out(
    `Emulator at ${emu.url}: profile "demo" gives ${demoBuilders}, ready after ${DEMO_PROFILE.readyDelayMs / 1000} s; ` +
      `profile "${DEMO_AMD64_PROFILE.name}" gives 1 amd64 builder to bake, whose targets are linux/amd64 only.`
  );
  out(
    `Costs: the service does not report a builder's size, so every step is given "builder-size: ${DEMO_PROFILE.size}" ` +
      `(the profile's size); its summary prices each builder at ${usdPerMinute(DEMO_PROFILE.size)} USD per minute (twice for a multi-arch one) ` +
      '(the service\'s price table) × the minutes from assignment to teardown. Without that input a summary says "size unknown".'
  );
  if (!(opts.debug ?? false))
    out('Debug lines are hidden: npm run demo -- --debug shows them (ACTIONS_STEP_DEBUG on a runner).');

  const steps: DemoStep[] = [];
  const buildersByJob: Record<string, string[]> = {};
  let ledger: LedgerEntry[] = [];
  try {
    const jobs = new DemoJobs({root: opts.root, work: root, emu, docker, out, debug: opts.debug ?? false});
    const all: {name: string; run: () => Promise<DemoStep[]>}[] = [
      {name: 'configure', run: () => jobs.configure()},
      {name: 'build-push', run: () => jobs.buildPush()},
      {name: 'bake', run: () => jobs.bake()}
    ];
    for (const [i, job] of all.entries()) {
      out('');
      out(`━━ Job ${i + 1}/${all.length}: ${job.name} ━━`);
      steps.push(...(await job.run()));
    }
    Object.assign(buildersByJob, jobs.buildersByJob);
    ledger = emu.ledger();
  } finally {
    await emu.close();
    rmSync(root, {recursive: true, force: true});
  }

  out('');
  out('━━ Job summaries ━━');
  for (const step of steps.filter(s => s.summary.trim() !== '')) {
    out('');
    out(`── ${step.job}: ${step.title} ──`);
    for (const line of summaryToText(step.summary))
      out(line === '' ? '' : `  ${simulated ? labelSimulated(line) : line}`);
  }

  out('');
  out('━━ Billing ledger ━━');
  for (const line of ledgerLines(ledger, buildersByJob)) out(line);
  for (const line of billComparison(ledger, buildersByJob, steps)) out(line);
  const left = ledger.filter(e => e.terminatedAt === undefined || e.reason !== 'teardown');
  const errors = emulatorLog.filter(l => !/^(GET|POST|DELETE|PUT|PATCH) /.test(l));
  if (errors.length > 0) {
    out('Emulator messages:');
    for (const e of errors) out(`  ${e}`);
  }
  const failed = steps.filter(s => !s.ok);
  const ok = failed.length === 0 && left.length === 0 && ledger.length > 0;
  out('');
  if (left.length === 0) out(`Every builder (${ledger.length}) was torn down by the actions.`);
  else out(`NOT TORN DOWN by the actions: ${left.map(e => `${e.builderId} (${e.reason ?? 'assigned'})`).join(', ')}.`);
  for (const s of failed) out(`FAILED: ${s.job}: ${s.title} (exit ${s.exitCode})`);
  out(
    simulated
      ? 'Reminder: the builds above were SIMULATED by the fake docker; the service calls, TLS and billing were real.'
      : `The builds above were REAL, on the BuildKit of ${docker.real ? docker.socket : ''}.`
  );
  const wallMs = Math.round(performance.now() - started);
  out(`Demo ${ok ? 'succeeded' : 'FAILED'} in ${(wallMs / 1000).toFixed(1)} s.`);
  return {ok, simulated, steps, ledger, buildersByJob, wallMs};
}

function probe(root: string): DockerProbe {
  return probeDocker({root});
}

interface DemoJobsOpts {
  root: string;
  /** The demo's temporary folder: one sub-folder per job. */
  work: string;
  emu: Emulator;
  docker: DockerProbe;
  out: (line: string) => void;
  debug: boolean;
}

/** DemoJobs runs the demo's three jobs, each on its own "runner": its own folder and DOCKER_CONFIG. */
class DemoJobs {
  readonly buildersByJob: Record<string, string[]> = {};

  constructor(private readonly opts: DemoJobsOpts) {}

  /** configure, a custom `docker buildx build` step on its builder, configure's post. */
  async configure(): Promise<DemoStep[]> {
    const job = this.job('configure');
    writeContext(job.workspace, 'configure');
    const main = await this.action(job, 'main', {});
    const steps = [main.step];
    const builder = main.result.outputs['name'];
    if (main.step.ok && builder) {
      const dest = join(job.dir, 'out');
      const argv = ['buildx', 'build', '--builder', builder, '--platform', PLATFORMS];
      steps.push(
        await this.command(
          job,
          'run: docker buildx build',
          'docker',
          [...argv, '--output', `type=local,dest=${dest}`, '.'],
          main.result
        )
      );
      this.showResults(dest);
    }
    steps.push((await this.action(job, 'post', {}, main.result)).step);
    return steps;
  }

  /** build-push: main builds (both platforms, exported to a local folder) and tears down; post checks. */
  async buildPush(): Promise<DemoStep[]> {
    const job = this.job('build-push');
    writeContext(job.workspace, 'build-push');
    const dest = join(job.dir, 'out');
    const inputs = {context: '.', platforms: PLATFORMS, tags: 'demo/app:latest', outputs: `type=local,dest=${dest}`};
    const main = await this.action(job, 'main', inputs);
    this.showResults(dest);
    const post = await this.action(job, 'post', inputs, main.result);
    return [main.step, post.step];
  }

  /** bake: two targets of a docker-bake.hcl, exported to local folders. */
  async bake(): Promise<DemoStep[]> {
    const job = this.job('bake');
    writeContext(job.workspace, 'bake');
    writeFileSync(join(job.workspace, 'docs.Dockerfile'), 'FROM scratch\nCOPY hello.txt /docs/README.txt\n');
    writeFileSync(
      join(job.workspace, 'docker-bake.hcl'),
      [
        'group "default" {',
        '  targets = ["app", "docs"]',
        '}',
        // Both targets on the amd64 node: with a real dockerd both nodes are the same BuildKit, which refuses
        // the bake's concurrent solves on the other node ("job ID … exists").
        'target "app" {',
        '  context   = "."',
        `  platforms = ["linux/amd64"]`,
        '  output    = ["type=local,dest=out/app"]',
        '}',
        // Its own Dockerfile: two targets with the same definition would be one solve, which BuildKit
        // refuses in a bake ("gateway result is already set").
        'target "docs" {',
        '  context    = "."',
        '  dockerfile = "docs.Dockerfile"',
        '  platforms = ["linux/amd64"]',
        '  output    = ["type=local,dest=out/docs"]',
        '}',
        ''
      ].join('\n')
    );
    // One platform, one builder.
    const inputs = {source: '.', 'profile-name': DEMO_AMD64_PROFILE.name};
    const main = await this.action(job, 'main', inputs);
    this.showResults(join(job.workspace, 'out'));
    const post = await this.action(job, 'post', inputs, main.result);
    return [main.step, post.step];
  }

  private job(name: string): DemoJob {
    const dir = join(this.opts.work, name);
    const {workspace} = jobDirs(dir);
    mkdirSync(workspace, {recursive: true});
    const env: Record<string, string> = {DOCKER_CONFIG: join(dir, 'docker-config')};
    if (!this.opts.docker.real) {
      env['PATH'] = `${join(this.opts.root, 'packages', 'emulator', 'fake-docker')}:${process.env['PATH'] ?? ''}`;
      // Its builders go in buildx's own records under the job's private DOCKER_CONFIG, as buildx keeps them.
      env['FAKE_DOCKER_DIR'] = join(dir, 'fake-docker');
    }
    return {name, dir, workspace, env};
  }

  /** One hook of `job`'s action through the harness; post gets main's state, exports and path. */
  private async action(
    job: DemoJob,
    hook: 'main' | 'post',
    inputs: Record<string, string>,
    main?: ActionRunResult
  ): Promise<{step: DemoStep; result: ActionRunResult}> {
    const title = `${job.name} (${hook})`;
    this.opts.out(`── ${title} ──`);
    const log = this.stepLog();
    const result = await runAction({
      script: join(this.opts.root, 'dist', job.name, hook, 'index.js'),
      inputs: {
        'profile-name': DEMO_PROFILE.name,
        'api-url': this.opts.emu.url,
        'api-key': DEMO_API_KEY,
        timeout: '60000',
        // The service does not report a builder's size: naming the profile's gives the summary its cost.
        'builder-size': DEMO_PROFILE.size,
        ...inputs
      },
      // As the runner gives action steps: the artifact service (the build record's upload), one job per demo job.
      env: {...job.env, ...main?.exportedEnv, ...this.opts.emu.artifacts.runnerEnv({jobBackendId: job.name})},
      state: main?.state,
      prependPath: main?.path,
      workDir: job.dir,
      timeoutMs: 180_000,
      onLine: line => log.line(line)
    });
    if (hook === 'main') this.buildersByJob[job.name] = builderIds(result);
    const step = {
      job: job.name,
      title: `${hook}`,
      exitCode: result.exitCode,
      ok: !result.failed,
      durationMs: result.durationMs,
      summary: result.summary
    };
    this.status(step);
    return {step, result};
  }

  /** A `run:` step of the job: a command with the job's env and what main exported (GITHUB_ENV, GITHUB_PATH). */
  private async command(
    job: DemoJob,
    title: string,
    command: string,
    args: string[],
    main: ActionRunResult
  ): Promise<DemoStep> {
    this.opts.out(`── ${title} ──`);
    this.opts.out(`  $ ${command} ${args.join(' ')}`);
    const log = this.stepLog();
    const basePath = job.env['PATH'] ?? process.env['PATH'] ?? '';
    // What main added to GITHUB_PATH goes first, by the runner's rule.
    const added = prependPathValue(main.path);
    const env = {
      ...process.env,
      ...job.env,
      ...main.exportedEnv,
      PATH: added ? `${added}${delimiter}${basePath}` : basePath
    };
    const begun = performance.now();
    // Asynchronously: the builders' TLS endpoints run in this process, a synchronous child would block them.
    const exitCode = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(command, args, {cwd: job.workspace, env, stdio: ['ignore', 'pipe', 'pipe']});
      const splitters = [child.stdout, child.stderr].map(stream => {
        const splitter = new LineSplitter();
        stream.on('data', (chunk: Buffer) => splitter.push(chunk).forEach(line => log.line(line)));
        return splitter;
      });
      child.once('error', reject);
      child.once('close', code => {
        for (const splitter of splitters) splitter.end().forEach(line => log.line(line));
        resolve(code);
      });
    });
    const step = {
      job: job.name,
      title,
      exitCode,
      ok: exitCode === 0,
      durationMs: Math.round(performance.now() - begun),
      summary: ''
    };
    this.status(step);
    return step;
  }

  private stepLog(): StepLog {
    return new StepLog({out: this.opts.out, prefix: '  ', debug: this.opts.debug});
  }

  private status(step: DemoStep): void {
    const mark = step.ok ? '✓ succeeded' : '✗ FAILED';
    this.opts.out(`  ${mark} (exit ${step.exitCode}) in ${(step.durationMs / 1000).toFixed(1)} s`);
  }

  /** The files a real build exported (the fake docker exports nothing). */
  private showResults(dir: string): void {
    if (!this.opts.docker.real) return;
    const files = listFiles(dir);
    if (files.length === 0) {
      this.opts.out(`  (no files exported to ${dir})`);
      return;
    }
    this.opts.out('  Exported by BuildKit:');
    for (const f of files) this.opts.out(`    ${relative(dir, f)}: ${readFileSync(f, 'utf8').trim()}`);
  }
}

interface DemoJob {
  name: string;
  /** The job's folder: runner-temp/, workspace/, docker-config/. */
  dir: string;
  workspace: string;
  env: Record<string, string>;
}

/** A build context that needs no registry: FROM scratch and one file (works on both architectures). */
function writeContext(dir: string, job: string): void {
  writeFileSync(join(dir, 'hello.txt'), `built by the ${job} job on a remote builder\n`);
  writeFileSync(join(dir, 'Dockerfile'), 'FROM scratch\nCOPY hello.txt /hello.txt\n');
}

function builderIds(result: ActionRunResult): string[] {
  try {
    const state = JSON.parse(result.state['builder'] ?? '{}') as {builderIds?: string[]};
    return state.builderIds ?? [];
  } catch {
    return [];
  }
}

function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, {recursive: true, encoding: 'utf8'})
    .map(f => join(dir, f))
    .filter(f => statSync(f).isFile())
    .sort();
}

/** The ledger as a table: which job, architecture, readiness, billed minutes, cost and how it ended. */
function ledgerLines(ledger: LedgerEntry[], buildersByJob: Record<string, string[]>): string[] {
  const jobOf = (id: string): string => Object.entries(buildersByJob).find(([, ids]) => ids.includes(id))?.[0] ?? '?';
  const rows = [
    ['Builder', 'Job', 'Arch', 'Size', 'Ready after', 'Billed', 'Cost', 'Ended'],
    ...ledger.map(e => [
      e.builderId,
      jobOf(e.builderId),
      e.arch,
      e.size,
      e.readyAt !== undefined ? `${((e.readyAt - e.assignedAt) / 1000).toFixed(1)} s` : 'never',
      `${(e.billedMs / 60_000).toFixed(3)} min`,
      `$${e.cost.toFixed(4)}`,
      e.terminatedAt === undefined ? 'STILL ASSIGNED' : (e.reason ?? 'terminated')
    ])
  ];
  const minutes = ledger.reduce((sum, e) => sum + e.billedMs, 0) / 60_000;
  const cost = ledger.reduce((sum, e) => sum + e.cost, 0);
  return [
    ...alignTable(rows).map(line => `  ${line}`),
    `  Total: ${ledger.length} builder(s), ${minutes.toFixed(3)} builder-minutes, $${cost.toFixed(4)}`
  ];
}

/** USD per minute of a size of the service's price table, e.g. "0.06" for 16x32. */
function usdPerMinute(size: keyof typeof PRICE_PER_MINUTE_USD): string {
  return String(PRICE_PER_MINUTE_USD[size]);
}

/** A summary line with its digests marked: the fake docker makes them up. */
export function labelSimulated(line: string): string {
  return line.replace(/\bsha256:[0-9a-f]{12,64}\b/g, d => `${d} (simulated)`);
}

/**
 * Each job's cost as its summaries say (the action's own count: assignment request → teardown answer) beside
 * the ledger's (the service's record, which is what is billed). They differ by the requests' round trips.
 */
function billComparison(ledger: LedgerEntry[], buildersByJob: Record<string, string[]>, steps: DemoStep[]): string[] {
  const lines = ['', "Which figure is the bill: the ledger above, the service's own record."];
  for (const [job, ids] of Object.entries(buildersByJob)) {
    const billed = ledger.filter(e => ids.includes(e.builderId)).reduce((sum, e) => sum + e.cost, 0);
    const said = steps
      .filter(s => s.job === job)
      .map(s => /Total cost:\*\*\s*[≤≥≈]?\s*([\d.]+) USD/.exec(s.summary)?.[1])
      .find(v => v !== undefined);
    lines.push(
      `  ${job}: ledger $${billed.toFixed(4)}; job summary ${said !== undefined ? `$${Number(said).toFixed(4)}` : 'no cost'}` +
        (said !== undefined && Number(said).toFixed(4) !== billed.toFixed(4)
          ? ' (the summary counts from our side of each request, so it differs by their round trips)'
          : '')
    );
  }
  return lines;
}
