// Issue 21's comparison: our configure against WarpBuild's docker-configure (the seed's system), both run
// the same way against one HTTPS emulator, with the same fake docker, in interleaved runs. WarpBuild's
// bundles are read from its bare mirror at bench time into a temporary folder (never kept in this repo).
import {execFileSync} from 'node:child_process';
import {existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {resolveBinary} from '@remote-builder-actions/core';
import {Emulator, type ProfileConfig} from '../index.js';
import {runAction, type ActionRunResult} from '../harness/index.js';
import {warnIfPoolRanOut} from './pool.js';
import type {Row} from './row.js';
import {stats, type Stats} from './stats.js';

/** WarpBuilds/docker-configure: the bare mirror and the commit measured (anchors §2.4). */
export const WARPBUILD_MIRROR = '/work/.mirror/WarpBuilds+docker-configure/repo';
export const WARPBUILD_COMMIT = '93a4846';

const API_KEY = 'bench-key';
/** Builders of the random case become ready this long after their assignment, uniformly (issue 21). */
const RANDOM_READY_MS = [500, 6000] as const;
/** How many builders the random cases assign (issue 29: 1 and 4). */
const RANDOM_SIZES = [1, 4] as const;

export interface PeerBenchOpts {
  runs: number;
  /** Our bundles (dist/ or BENCH_DIST). */
  dist: string;
  /** packages/emulator/fake-docker. */
  fakeDocker: string;
  /** Default WARPBUILD_MIRROR. */
  mirror?: string;
  /**
   * A real docker CLI (BENCH_DOCKER_CLI) to put in front of the fake buildx plugin instead of the fake docker's
   * script: it looks the plugin up and checks its metadata as on a runner, so its cost is measured too.
   */
  dockerCli?: string;
  /** Bundles to measure in the same runs as a third implementation (BENCH_BASELINE_DIST), e.g. before a change. */
  baseline?: string;
}

interface Peer {
  name: string;
  main: string;
  post: string;
  inputs(url: string, profile: string): Record<string, string>;
  env(url: string): Record<string, string>;
  builderIds(main: ActionRunResult): string[];
}

interface Job {
  main: ActionRunResult;
  spawnedAt: number;
  exitAt: number;
  /** When the emulator received the job's first API request. */
  firstRequestAt: number;
  builderIds: string[];
  /** Details requests (GET /api/v1/builders/{id}) main sent for its builders. */
  detailsRequests: number;
}

/**
 * The docker CLI the peers run by default (BENCH_DOCKER_CLI unset): the first `docker` on PATH when it is a
 * binary, as on a runner (this machine kind has the 28.2 client), else the fake's script. `fake` forces the
 * script; a path names a CLI.
 */
export function benchDockerCli(setting: string | undefined, path = process.env['PATH'] ?? ''): string | undefined {
  if (setting === 'fake') return undefined;
  return setting || resolveBinary('docker', {PATH: path}, 'linux');
}

/** Writes WarpBuild's dist/main.js and dist/cleanup.js at the pinned commit into `dir`. */
function extractWarpBuild(mirror: string, dir: string): {main: string; post: string} {
  const show = (path: string): string =>
    execFileSync('git', ['--git-dir', mirror, 'show', `${WARPBUILD_COMMIT}:${path}`], {
      encoding: 'utf8',
      maxBuffer: 64 * 2 ** 20
    });
  const main = join(dir, 'main.js');
  const post = join(dir, 'cleanup.js');
  writeFileSync(main, show('dist/main.js'));
  writeFileSync(post, show('dist/cleanup.js'));
  return {main, post};
}

/** Our configure from the bundles in `dist`. */
function ours(name: string, dist: string): Peer {
  return {
    name,
    main: join(dist, 'configure', 'main', 'index.js'),
    post: join(dist, 'configure', 'post', 'index.js'),
    inputs: (url, profile) => ({'profile-name': profile, 'api-url': url, 'api-key': API_KEY, timeout: '60000'}),
    env: () => ({}),
    builderIds: main => (main.outputs['builder-ids'] ?? '').split(',').filter(Boolean)
  };
}

/** Ours, WarpBuild's, and ours from the baseline bundles when given (always in that order). */
function peers(dist: string, warpbuild: {main: string; post: string}, baseline?: string): Peer[] {
  const all: Peer[] = [
    ours('ours', dist),
    {
      name: 'WarpBuild',
      ...warpbuild,
      inputs: (_url, profile) => ({'profile-name': profile, 'api-key': API_KEY, timeout: '60000'}),
      env: url => ({WARPBUILD_API_DOMAIN: url}),
      builderIds: main =>
        (JSON.parse(main.state['WARPBUILD_BUILDERS'] ?? '{"builders":[]}') as {builders: {id: string}[]}).builders.map(
          b => b.id
        )
    }
  ];
  if (baseline) all.push(ours('ours before', baseline));
  return all;
}

/**
 * Runs the comparison and returns its rows: the whole main step with 1, 4 and 8 builders ready at once,
 * 8 against 1, the lag after the last of 1 and of 4 builders ready at random with the details requests it
 * took, and the cold start.
 */
export async function peerRows(opts: PeerBenchOpts): Promise<Row[]> {
  const mirror = opts.mirror ?? WARPBUILD_MIRROR;
  if (!existsSync(mirror)) throw new Error(`bench peers: no WarpBuild mirror at ${mirror}`);
  const scratch = mkdtempSync(join(tmpdir(), 'bench-peers-'));
  // Builders of profile 'later' wait for markReady; `readyIn` holds the delays of the job in flight.
  let readyIn: number[] = [];
  const scheduled = new Set<string>();
  const started: {emu?: Emulator} = {};
  const onLog = (line: string): void => {
    const {emu} = started;
    if (!emu || !line.startsWith('POST /api/v1/builders/assign -> 200')) return;
    const fresh = emu.assignedBuilders().filter(e => e.profile.startsWith('later-') && !scheduled.has(e.builderId));
    fresh.forEach((e, i) => {
      scheduled.add(e.builderId);
      const at = e.assignedAt + (readyIn[i] ?? 0);
      setTimeout(() => ignore(() => emu.markReady(e.builderId)), Math.max(0, at - Date.now()));
    });
  };
  const profiles: ProfileConfig[] = [
    ...[1, 4, 8].map((n): ProfileConfig => ({
      name: `now-${n}`,
      buildersPerAssignment: n,
      architectures: ['amd64', 'arm64']
    })),
    ...RANDOM_SIZES.map((n): ProfileConfig => ({
      name: `later-${n}`,
      buildersPerAssignment: n,
      architectures: ['amd64', 'arm64'],
      readyDelayMs: 3_600_000
    }))
  ];
  const implementations = opts.baseline ? 3 : 2;
  const emu = await Emulator.start({
    profiles,
    apiKeys: [{key: API_KEY, scopes: ['builders']}],
    https: {},
    log: onLog,
    // Builders' certificates made before the runs (the service's work, not the step's): every run of every
    // implementation assigns 1 + 4 + 8 builders at once and 1 + 4 at random.
    pkiPool: opts.runs * implementations * 18 + 8
  });
  started.emu = emu;
  try {
    const ca = join(scratch, 'api-ca.pem');
    writeFileSync(ca, emu.apiCaCert ?? '');
    const all = peers(opts.dist, extractWarpBuild(mirror, scratch), opts.baseline);
    const job = async (peer: Peer, profile: string): Promise<Job> => {
      const work = mkdtempSync(join(scratch, 'job-'));
      // The fake docker as a CLI with a buildx plugin: `docker buildx …` runs <DOCKER_CONFIG>/cli-plugins/docker-buildx.
      const dockerConfig = join(work, 'docker-config');
      mkdirSync(join(dockerConfig, 'cli-plugins'), {recursive: true});
      symlinkSync(join(opts.fakeDocker, 'docker-buildx'), join(dockerConfig, 'cli-plugins', 'docker-buildx'));
      const bin = join(work, 'bin');
      mkdirSync(bin);
      if (opts.dockerCli) symlinkSync(opts.dockerCli, join(bin, 'docker'));
      const env = {
        PATH: `${bin}:${opts.fakeDocker}:${process.env['PATH'] ?? ''}`,
        HOME: join(work, 'home'),
        DOCKER_CONFIG: dockerConfig,
        FAKE_DOCKER_BUILDX: 'plugin',
        // The fake docker keeps its builders in buildx's own records under the job's DOCKER_CONFIG.
        FAKE_DOCKER_DIR: join(work, 'docker'),
        NODE_EXTRA_CA_CERTS: ca,
        ...peer.env(emu.url)
      };
      const inputs = peer.inputs(emu.url, profile);
      const before = emu.requests().length;
      const spawnedAt = Date.now();
      const main = await runAction({script: peer.main, inputs, env, workDir: work});
      const exitAt = Date.now();
      if (main.exitCode !== 0) throw new Error(`${peer.name} main failed:\n${main.stdout}\n${main.stderr}`);
      const sent = emu.requests().slice(before);
      const first = sent[0];
      if (!first) throw new Error(`${peer.name} main sent no API request`);
      const detailsRequests = sent.filter(r => r.at <= exitAt && r.route === 'details').length;
      const post = await runAction({script: peer.post, inputs, env, workDir: work, state: main.state});
      if (post.exitCode !== 0) throw new Error(`${peer.name} post failed:\n${post.stdout}`);
      rmSync(work, {recursive: true, force: true});
      return {main, spawnedAt, exitAt, firstRequestAt: first.at, builderIds: peer.builderIds(main), detailsRequests};
    };
    /** Every peer once per run, the order alternating so neither always runs on a warmer machine. */
    const interleaved = async <T>(runs: number, fn: (peer: Peer, k: number) => Promise<T>): Promise<T[][]> => {
      const out: T[][] = all.map(() => []);
      for (let k = 0; k < runs; k++) {
        const order = k % 2 === 0 ? all.map((_, i) => i) : all.map((_, i) => all.length - 1 - i);
        for (const i of order) out[i]!.push(await fn(all[i]!, k));
      }
      return out;
    };

    const rows: Row[] = [];
    const front = opts.dockerCli ? `, docker CLI ${opts.dockerCli}` : '';
    const [OURS, THEIRS, BEFORE] = [0, 1, 2];
    /** A row of ours against WarpBuild's (and our baseline's median, when measured). */
    const row = (what: string, by: Stats[], goal: string, met: boolean, more: Row['extra'] = {}): Row => {
      const extra: Row['extra'] = {
        'WarpBuild median': by[THEIRS]!.median,
        '× WarpBuild': (by[OURS]!.median / by[THEIRS]!.median).toFixed(2),
        ...more
      };
      if (by[BEFORE]) extra['ours before, median'] = by[BEFORE].median;
      const peer = {name: 'WarpBuild', stats: by[THEIRS]!};
      return {figure: '6 vs WarpBuild', case: `${what}${front}`, unit: 'ms', stats: by[OURS]!, peer, goal, met, extra};
    };

    // 1, 4 and 8 builders in every run, their order rotating: a ratio of two sizes then compares jobs of the
    // same minutes, not blocks minutes apart on a machine whose speed drifts (figure 2 at 8 builders read
    // 0.93× to 1.18× of 1, this row 1.19× to 1.48×, in three sittings of one day).
    const SIZES = [1, 4, 8];
    const bySize = await interleaved(opts.runs, async (p, k) => {
      const out: Record<number, Job> = {};
      for (const i of SIZES.keys()) {
        const n = SIZES[(i + k) % SIZES.length]!;
        out[n] = await job(p, `now-${n}`);
      }
      return out;
    });
    const whole: Record<number, Stats[]> = {};
    for (const n of SIZES) whole[n] = bySize.map(runs => stats(runs.map(r => r[n]!.main.durationMs)));
    const cold = bySize.map(runs => stats(runs.map(r => r[1]!.firstRequestAt - r[1]!.spawnedAt)));
    for (const n of [1, 4]) {
      const by = whole[n]!;
      rows.push(
        row(
          `main step, ${n} builder${n > 1 ? 's' : ''} ready at once (spawn → exit)`,
          by,
          '≤ WarpBuild (median)',
          by[OURS]!.median <= by[THEIRS]!.median
        )
      );
    }
    const ratio = (i: number): string => (whole[8]![i]!.median / whole[1]![i]!.median).toFixed(2);
    // Also the median of each run's own 8-against-1 ratio: what drift the interleaving leaves shows as a gap.
    const paired = stats(bySize[OURS]!.map(r => r[8]!.main.durationMs / r[1]!.main.durationMs)).median.toFixed(2);
    const ratios: Row['extra'] = {
      '× of 1 builder': ratio(OURS),
      '× of 1 builder, run by run (median)': paired,
      'WarpBuild × of 1 builder': ratio(THEIRS)
    };
    if (whole[8]![BEFORE]) ratios['ours before × of 1 builder'] = ratio(BEFORE);
    const eight = 'main step, 8 builders ready at once, against 1';
    rows.push(row(eight, whole[8]!, '≤ 1.3× of 1 builder', Number(ratio(OURS)) <= 1.3, ratios));

    // Drawn once per run: every implementation gets the same ready times in run k. Each row counts the details
    // requests beside the lag (what the speed costs the service), and the fleet line scales them to a thousand
    // jobs waiting at once.
    const [from, to] = RANDOM_READY_MS;
    for (const n of RANDOM_SIZES) {
      const readyTimes = Array.from({length: opts.runs}, () =>
        Array.from({length: n}, () => from + Math.random() * (to - from))
      );
      const runs = await interleaved(opts.runs, async (p, k) => {
        readyIn = readyTimes[k]!;
        const j = await job(p, `later-${n}`);
        const ready = emu.ledger().filter(e => j.builderIds.includes(e.builderId));
        if (ready.length !== n || ready.some(e => e.readyAt === undefined))
          throw new Error(`${p.name}: not every builder was ready`);
        const lastReady = Math.max(...ready.map(e => e.readyAt as number));
        // Requests per builder per second of its wait (its assignment → main's exit).
        const waited = ready.reduce((sum, e) => sum + (j.exitAt - e.assignedAt), 0) / 1000;
        return {lag: j.exitAt - lastReady, requests: j.detailsRequests / n, rate: j.detailsRequests / waited};
      });
      const lags = runs.map(r => stats(r.map(x => x.lag)));
      const requests = runs.map(r => stats(r.map(x => x.requests)).median.toFixed(1));
      const rates = runs.map(r => stats(r.map(x => x.rate)).median);
      const counts: Row['extra'] = {
        'details requests per builder (median)': requests[OURS]!,
        'WarpBuild details requests per builder': requests[THEIRS]!,
        'requests a second, 1,000 jobs waiting': Math.round(rates[OURS]! * 1000 * n),
        'WarpBuild requests a second, 1,000 jobs waiting': Math.round(rates[THEIRS]! * 1000 * n)
      };
      if (requests[BEFORE]) counts['ours before, details requests per builder'] = requests[BEFORE];
      rows.push(
        row(
          `${n} builder${n > 1 ? 's' : ''} ready at random 0.5–6 s: last ready → main exits`,
          lags,
          '≤ 0.4× WarpBuild (median), ≤ 4 details requests a second',
          lags[OURS]!.median <= 0.4 * lags[THEIRS]!.median,
          counts
        )
      );
    }
    rows.push({
      ...row(
        'configure over HTTPS, buildx as a plugin: spawn → first API request',
        cold,
        '≤120',
        cold[OURS]!.median <= 120
      ),
      figure: '5 cold start'
    });
    return rows;
  } finally {
    warnIfPoolRanOut(emu);
    await emu.close();
    rmSync(scratch, {recursive: true, force: true});
  }
}

function ignore(fn: () => void): void {
  try {
    fn();
  } catch {
    // A builder torn down before its time came: nothing to make ready.
  }
}
