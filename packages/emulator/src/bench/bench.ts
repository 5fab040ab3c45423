// `npm run bench`: drives the bundled actions through the runner harness against the emulator and
// prints median/p95 figures; writes bench/results.json. Not part of the tests.
import {execFile, spawnSync} from 'node:child_process';
import {promisify} from 'node:util';
import {mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync} from 'node:fs';
import {cpus, tmpdir, totalmem} from 'node:os';
import {dirname, join, resolve} from 'node:path';
import {fileURLToPath} from 'node:url';
import {createBuilderApiClient, grpcBuildkitInfo, parseBuilderEndpoint} from '@remote-builder-actions/core';
import {Emulator, type ProfileConfig} from '../index.js';
import {runAction, type ActionRunResult} from '../harness/index.js';
import {benchDockerCli, peerRows} from './peers.js';
import {recordRows} from './record.js';
import type {Row} from './row.js';
import {warnIfPoolRanOut} from './pool.js';
import {stats} from './stats.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
/** The bundles measured: BENCH_DIST (e.g. a private `node scripts/bundle.mjs --out DIR`), else dist/. */
const DIST = resolve(process.env['BENCH_DIST'] || join(root, 'dist'));
const CONFIGURE = join(DIST, 'configure');
const BUILD_PUSH = join(DIST, 'build-push');
const FAKE_DOCKER = join(root, 'packages', 'emulator', 'fake-docker');
const API_KEY = 'bench-key';
const RUNS = Number(process.env['BENCH_RUNS'] ?? 20);

const rows: Row[] = [];

async function withEmulator<T>(
  profiles: ProfileConfig[],
  latencyMs: number,
  fn: (emu: Emulator) => Promise<T>
): Promise<T> {
  // Builders' certificates made before the runs (PkiPool): the service's work, not the step's, kept off the
  // cores the step runs on. Enough for two jobs a run (the cold start measures twice) of every profile.
  const pkiPool = (2 * RUNS + 8) * profiles.reduce((n, p) => n + (p.buildersPerAssignment ?? 1), 0);
  const emu = await Emulator.start({profiles, apiKeys: [{key: API_KEY, scopes: ['builders']}], latencyMs, pkiPool});
  try {
    return await fn(emu);
  } finally {
    warnIfPoolRanOut(emu);
    await emu.close();
  }
}

interface JobTimes {
  main: ActionRunResult;
  post?: ActionRunResult;
  spawnedAt: number;
  readyLineAt?: number;
  work: string;
}

/** Runs configure main (and post unless told not to), recording when main logs that every builder is ready. */
async function configureJob(
  emu: Emulator,
  profile: string,
  opts: {
    post?: boolean;
    between?: (main: ActionRunResult, work: string) => Promise<void>;
    env?: Record<string, string>;
    inputs?: Record<string, string>;
  } = {}
): Promise<JobTimes> {
  const work = mkdtempSync(join(tmpdir(), 'bench-'));
  const inputs = {'profile-name': profile, 'api-url': emu.url, 'api-key': API_KEY, timeout: '60000', ...opts.inputs};
  const env = {
    PATH: `${FAKE_DOCKER}:${process.env['PATH'] ?? ''}`,
    FAKE_DOCKER_DIR: join(work, 'docker'),
    // The fake docker keeps its builders in buildx's own records under the job's own DOCKER_CONFIG.
    DOCKER_CONFIG: join(work, 'docker-config'),
    ...opts.env
  };
  let readyLineAt: number | undefined;
  const spawnedAt = Date.now();
  const main = await runAction({
    script: join(CONFIGURE, 'main', 'index.js'),
    inputs,
    env,
    workDir: work,
    onLine: line => {
      if (readyLineAt === undefined && line.startsWith('All builders ready after')) readyLineAt = Date.now();
    }
  });
  if (main.exitCode !== 0) throw new Error(`configure main failed: ${main.stdout}\n${main.stderr}`);
  if (opts.between) await opts.between(main, work);
  let post: ActionRunResult | undefined;
  if (opts.post !== false) {
    post = await runAction({
      script: join(CONFIGURE, 'post', 'index.js'),
      inputs,
      env,
      workDir: work,
      state: main.state
    });
    if (post.exitCode !== 0) throw new Error(`configure post failed: ${post.stdout}`);
  }
  return {main, post, spawnedAt, readyLineAt, work};
}

function idsOf(main: ActionRunResult): string[] {
  return (main.outputs['builder-ids'] ?? '').split(',').filter(Boolean);
}

/** Runs `count` jobs, `parallel` at a time. */
async function batches<T>(count: number, parallel: number, fn: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < count; i += parallel) {
    out.push(...(await Promise.all(Array.from({length: Math.min(parallel, count - i)}, (_, k) => fn(i + k)))));
  }
  return out;
}

/** 1. Readiness detection lag: the action noticing a builder that became ready after D ms. */
async function readinessLag(delays: number[], latencyMs: number): Promise<void> {
  for (const d of delays) {
    await withEmulator([{name: 'p', readyDelayMs: d}], latencyMs, async emu => {
      const parallel = d >= 10000 ? 4 : d > 0 ? 2 : 1;
      const lags: number[] = [];
      const rates: number[] = [];
      const counts: number[] = [];
      await batches(RUNS, parallel, async () => {
        const job = await configureJob(emu, 'p', {post: true});
        const [id] = idsOf(job.main);
        const entry = emu.ledger().find(e => e.builderId === id);
        if (!entry?.readyAt || job.readyLineAt === undefined) throw new Error('readiness not observed');
        lags.push(job.readyLineAt - entry.readyAt);
        const details = emu.requests().filter(r => r.route === 'details' && r.builderId === id).length;
        counts.push(details);
        // Polling rate: requests after the first, per second of waiting (no fencepost), over at least 1 s.
        const waitedS = Math.max(1, (job.readyLineAt - entry.assignedAt) / 1000);
        rates.push((details - 1) / waitedS);
        rmSync(job.work, {recursive: true, force: true});
      });
      const s = stats(lags);
      rows.push({
        figure: '1 readiness lag',
        case: `D=${d / 1000}s${latencyMs ? `, +${latencyMs}ms API` : ''}`,
        unit: 'ms',
        stats: s,
        goal: '≤150 median, ≤300 p95',
        met: s.median <= 150 && s.p95 <= 300,
        extra: {
          'details req/s per builder (max)': Math.max(...rates).toFixed(2),
          'details requests (median)': stats(counts).median
        }
      });
    });
  }
}

/** 2. Setup overhead: process start → outputs written (main exits), D = 0, n builders. */
async function setupOverhead(ns: number[], latencyMs: number): Promise<void> {
  const medians: Record<number, number> = {};
  for (const n of ns) {
    await withEmulator(
      [{name: 'p', buildersPerAssignment: n, architectures: ['amd64', 'arm64']}],
      latencyMs,
      async emu => {
        const durations: number[] = [];
        await batches(RUNS, 1, async () => {
          const job = await configureJob(emu, 'p');
          durations.push(job.main.durationMs);
          rmSync(job.work, {recursive: true, force: true});
        });
        const s = stats(durations);
        medians[n] = s.median;
        rows.push({
          figure: '2 setup overhead',
          case: `${n} builder${n > 1 ? 's' : ''}${latencyMs ? `, +${latencyMs}ms API` : ''}`,
          unit: 'ms',
          stats: s,
          goal: n === 8 ? '≤1.3× of 1 builder' : undefined,
          met: n === 8 && medians[1] ? s.median / medians[1] <= 1.3 : undefined,
          extra: n > 1 && medians[1] ? {'× of 1 builder': (s.median / medians[1]).toFixed(2)} : undefined
        });
      }
    );
  }
}

/** 3. Billed overhead: (teardown − assign) − (build start → build end), from the ledger. */
async function billedOverhead(delays: number[]): Promise<void> {
  for (const d of delays) {
    await withEmulator([{name: 'p', readyDelayMs: d}], 0, async emu => {
      const overheads: number[] = [];
      await batches(RUNS, 4, async () => {
        let buildMs = 0;
        const job = await configureJob(emu, 'p', {
          between: async (main, work) => {
            const t0 = Date.now();
            // Async: a blocking exec would freeze the emulator (and its TLS proxies) in this process.
            await promisify(execFile)('docker', ['buildx', 'build', '--builder', main.outputs['name'] ?? '', '.'], {
              env: {
                ...process.env,
                PATH: `${FAKE_DOCKER}:${process.env['PATH'] ?? ''}`,
                FAKE_DOCKER_DIR: join(work, 'docker'),
                FAKE_DOCKER_BUILD_MS: '1000'
              }
            });
            buildMs = Date.now() - t0;
          }
        });
        const [id] = idsOf(job.main);
        const e = emu.ledger().find(x => x.builderId === id);
        if (!e?.terminatedAt) throw new Error('builder not torn down');
        overheads.push(e.terminatedAt - e.assignedAt - buildMs);
        rmSync(job.work, {recursive: true, force: true});
      });
      rows.push({
        figure: '3 billed overhead',
        case: `configure (build step between main and post), D=${d / 1000}s, 1 s build`,
        unit: 'ms',
        stats: stats(overheads),
        goal: `≤ D + 1000 = ${d + 1000}`,
        met: stats(overheads).median <= d + 1000
      });
    });
  }
}

/**
 * 3b. Billed overhead of build-push, whose main tears down as soon as the build ends: the build window is
 * taken from main's log (the `[command]… buildx build` line → the line after the build).
 */
async function billedOverheadBuildPush(delays: number[]): Promise<void> {
  for (const d of delays) {
    await withEmulator([{name: 'p', readyDelayMs: d}], 0, async emu => {
      const overheads: number[] = [];
      await batches(RUNS, 2, async () => {
        const work = mkdtempSync(join(tmpdir(), 'bench-bp-'));
        // The build context (the job's workspace): the fake docker reads its Dockerfile, as BuildKit does.
        mkdirSync(join(work, 'workspace'), {recursive: true});
        writeFileSync(
          join(work, 'workspace', 'Dockerfile'),
          'FROM alpine:3.20\nWORKDIR /src\nCOPY . .\nRUN ./build.sh\n'
        );
        const inputs = {
          'profile-name': 'p',
          'api-url': emu.url,
          'api-key': API_KEY,
          timeout: '60000',
          push: 'true',
          tags: 'r/app:1'
        };
        const env = {
          PATH: `${FAKE_DOCKER}:${process.env['PATH'] ?? ''}`,
          FAKE_DOCKER_DIR: join(work, 'docker'),
          FAKE_DOCKER_BUILD_MS: '1000'
        };
        let buildStart: number | undefined;
        let buildEnd: number | undefined;
        const main = await runAction({
          script: join(BUILD_PUSH, 'main', 'index.js'),
          inputs,
          env,
          workDir: work,
          onLine: line => {
            if (buildStart === undefined && /^\[command\].* buildx build /.test(line)) buildStart = Date.now();
            else if (buildStart !== undefined && buildEnd === undefined && /^(ImageID|Digest):/.test(line))
              buildEnd = Date.now();
          }
        });
        if (main.exitCode !== 0 || buildStart === undefined || buildEnd === undefined)
          throw new Error(`build-push main failed: ${main.stdout}`);
        const post = await runAction({
          script: join(BUILD_PUSH, 'post', 'index.js'),
          inputs,
          env,
          workDir: work,
          state: main.state
        });
        if (post.exitCode !== 0) throw new Error('build-push post failed');
        const id = (JSON.parse(main.state['builder'] ?? '{}') as {builderIds?: string[]}).builderIds?.[0];
        const e = emu.ledger().find(x => x.builderId === id);
        if (!e?.terminatedAt) throw new Error('builder not torn down');
        overheads.push(e.terminatedAt - e.assignedAt - (buildEnd - buildStart));
        rmSync(work, {recursive: true, force: true});
      });
      rows.push({
        figure: '3 billed overhead',
        case: `build-push, D=${d / 1000}s, 1 s build`,
        unit: 'ms',
        stats: stats(overheads),
        goal: `≤ D + 1000 = ${d + 1000}`,
        met: stats(overheads).median <= d + 1000
      });
    });
  }
}

/** 4. Post duration, normal and with a builder endpoint that never answers buildx. */
async function postDuration(): Promise<void> {
  for (const [label, env] of [
    ['normal', {}],
    ['buildx rm hangs (unreachable endpoint)', {FAKE_DOCKER_HANG: 'rm,inspect'}]
  ] as const) {
    await withEmulator([{name: 'p'}], 0, async emu => {
      const durations: number[] = [];
      await batches(label === 'normal' ? RUNS : Math.min(RUNS, 5), 1, async () => {
        const job = await configureJob(emu, 'p', {post: false});
        const work = job.work;
        const post = await runAction({
          script: join(CONFIGURE, 'post', 'index.js'),
          inputs: {'api-url': emu.url, 'api-key': API_KEY, 'profile-name': 'p'},
          env: {PATH: `${FAKE_DOCKER}:${process.env['PATH'] ?? ''}`, FAKE_DOCKER_DIR: join(work, 'docker'), ...env},
          workDir: work,
          state: job.main.state
        });
        durations.push(post.durationMs);
        rmSync(work, {recursive: true, force: true});
      });
      const s = stats(durations);
      rows.push({figure: '4 post', case: label, unit: 'ms', stats: s, goal: '≤2000, bounded', met: s.p95 <= 2000});
    });
  }
}

/**
 * 5. Cold start: process spawn → first API request; and bundle sizes. Measured twice: with `setup-buildx:
 * false` the first thing the bundle does is the assignment request, so the figure is the bundle's own start
 * (load, inputs, client); by default `docker buildx version` runs first (a runner without buildx must bill
 * nothing), so that figure adds one docker process (here the fake docker, itself a node process).
 */
async function coldStart(): Promise<void> {
  await withEmulator([{name: 'p'}], 0, async emu => {
    const measure = async (inputs: Record<string, string>): Promise<number[]> => {
      const starts: number[] = [];
      await batches(RUNS, 1, async () => {
        const before = emu.requests().length;
        const job = await configureJob(emu, 'p', {env: {}, inputs});
        const first = emu.requests()[before];
        if (!first) throw new Error('no request seen');
        starts.push(first.at - job.spawnedAt);
        rmSync(job.work, {recursive: true, force: true});
      });
      return starts;
    };
    const own = await measure({'setup-buildx': 'false'});
    const starts = await measure({});
    const sizes = ['main', 'post']
      .map(h => `${h} ${(statSync(join(CONFIGURE, h, 'index.js')).size / 1024).toFixed(0)} KiB`)
      .join(', ');
    const bare: number[] = [];
    for (let i = 0; i < 10; i++) {
      const t = Date.now();
      spawnSync(process.execPath, ['-e', '']);
      bare.push(Date.now() - t);
    }
    rows.push({
      figure: '5 cold start',
      case: 'configure, setup-buildx false: spawn → first API request (the bundle alone)',
      unit: 'ms',
      stats: stats(own),
      goal: '≤120',
      met: stats(own).median <= 120,
      extra: {'bare node start (median)': stats(bare).median, bundles: sizes}
    });
    rows.push({
      figure: '5 cold start',
      case: 'configure: spawn → buildx version → first API request',
      unit: 'ms',
      stats: stats(starts),
      goal: '≤120',
      met: stats(starts).median <= 120,
      extra: {'bare node start (median)': stats(bare).median, bundles: sizes}
    });
  });
}

/**
 * 7. One gRPC call to a builder (Control/Info over mutual TLS, on a new connection, as the step makes it once a
 * builder's details are in): handshake, HTTP/2 and the answer. BuildKit's Go server sends without Nagle; an
 * endpoint that delays its small writes adds ~40 ms to each call (the client's delayed ACK), which the step
 * would wait for and BuildKit never makes it wait for.
 */
async function builderCall(): Promise<void> {
  await withEmulator([{name: 'p'}], 0, async emu => {
    const api = createBuilderApiClient({apiUrl: emu.url, token: API_KEY, env: {}});
    try {
      const [builder] = (await api.assignBuilder('p')).builder_instances;
      const {metadata} = await api.getBuilderDetails(builder?.id ?? '');
      const {hostname, port} = parseBuilderEndpoint(metadata.host ?? '');
      const pems = {ca: metadata.ca ?? '', cert: metadata.client_cert ?? '', key: metadata.client_key ?? ''};
      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const started = performance.now();
        const info = await grpcBuildkitInfo({hostname, port, pems, timeoutMs: 5000});
        if (info.version === undefined) throw new Error(`Control/Info failed: ${info.why}`);
        times.push(performance.now() - started);
      }
      const s = stats(times);
      rows.push({
        figure: '7 builder call',
        case: 'Control/Info to an emulator builder: connect → mutual TLS → HTTP/2 → answer',
        unit: 'ms',
        stats: s,
        goal: '≤20 (no Nagle stall)',
        met: s.median <= 20
      });
    } finally {
      api.close();
    }
  });
}

function printTable(): void {
  const header = ['figure', 'case', 'median', 'p95', 'n', 'peer median', 'goal', 'met', 'notes'];
  const lines = rows.map(r => [
    r.figure,
    r.case,
    `${Math.round(r.stats.median)} ${r.unit}`,
    `${Math.round(r.stats.p95)} ${r.unit}`,
    String(r.stats.n),
    r.peer ? `${r.peer.name} ${Math.round(r.peer.stats.median)} ${r.unit}` : '',
    r.goal ?? '',
    r.met === undefined ? '' : r.met ? 'yes' : 'NO',
    Object.entries(r.extra ?? {})
      .map(([k, v]) => `${k}: ${v}`)
      .join('; ')
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map(l => (l[i] ?? '').length)));
  const fmt = (cells: string[]): string => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  console.log(fmt(header));
  console.log(`|${widths.map(w => '-'.repeat(w + 2)).join('|')}|`);
  for (const l of lines) console.log(fmt(l));
}

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  const want = (k: string): boolean => only.length === 0 || only.includes(k);
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}`;
  console.log(`Benchmarks on ${machine}; ${RUNS} runs per figure (BENCH_RUNS); bundles in ${DIST}.`);
  if (want('lag')) await readinessLag([0, 1500, 10000], 0);
  if (want('setup')) await setupOverhead([1, 2, 4, 8], 0);
  if (want('billed')) {
    await billedOverheadBuildPush([0, 1500]);
    await billedOverhead([0, 1500]);
  }
  if (want('post')) await postDuration();
  if (want('cold')) await coldStart();
  if (want('call')) await builderCall();
  if (want('peers')) {
    const dockerCli = benchDockerCli(process.env['BENCH_DOCKER_CLI']);
    const baseline = process.env['BENCH_BASELINE_DIST'] || undefined;
    rows.push(...(await peerRows({runs: RUNS, dist: DIST, fakeDocker: FAKE_DOCKER, dockerCli, baseline})));
  }
  // Needs the real BuildKit of the end-to-end environment (docs/e2e.md): only when asked for by name.
  if (only.includes('record')) rows.push(...(await recordRows({runs: RUNS, dist: DIST})));
  if (want('latency')) {
    await readinessLag([1500], 50);
    await setupOverhead([1], 50);
  }
  printTable();
  // BENCH_RESULTS: elsewhere than bench/results.json (a trial of some figures, or of private bundles).
  const out = resolve(process.env['BENCH_RESULTS'] || join(root, 'bench', 'results.json'));
  mkdirSync(dirname(out), {recursive: true});
  writeFileSync(
    out,
    JSON.stringify(
      {machine, runs: RUNS, at: new Date().toISOString(), bundles: process.env['BENCH_DIST'] ? DIST : 'dist', rows},
      null,
      2
    ) + '\n'
  );
  console.log(`\nWrote ${out}`);
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.stack : e);
  process.exit(1);
});
