// `npm run bench -- record`: what the build record (issue 28) adds to a build-push step and to its billed time,
// against a real BuildKit (the end-to-end environment: `E2E_SET=newest bash scripts/e2e-up.sh`, see
// docs/e2e.md). Runs build-push main with the record (the default) and without it (DOCKER_BUILD_SUMMARY=false),
// interleaved, each build new (a unique RUN), uploading to the emulator's artifact service.
import {randomBytes} from 'node:crypto';
import {join} from 'node:path';
import {requireE2eEnv, type E2eEmulator, type Workspace} from '../../__e2e__/e2e-env.js';
import {runAction} from '../harness/index.js';
import type {Row} from './row.js';
import {stats} from './stats.js';

const PROFILE = 'bench-record-amd64';
/** Goals of issue 28 §4 (the median added by the record). */
const STEP_GOAL_MS = 1000;
const BILL_GOAL_MS = 500;

/** One build-push main run: its times, and what its log says of the record. */
interface RecordRun {
  stepMs: number;
  billedMs: number;
  /** From the export group's start to its end (the builder is held for it: billed). */
  exportMs?: number;
  /** From the teardown's last line to the upload's (not billed). */
  uploadMs?: number;
}

export interface RecordBenchOpts {
  runs: number;
  /** dist/ (or BENCH_DIST) */
  dist: string;
}

export async function recordRows(opts: RecordBenchOpts): Promise<Row[]> {
  const env = await requireE2eEnv();
  const emu = await env.startEmulator({profiles: [{name: PROFILE, architectures: ['amd64'], readyDelayMs: 0}]});
  const ws = env.workspace('bench-record');
  const withRecord: RecordRun[] = [];
  const without: RecordRun[] = [];
  try {
    // A first build of each kind warms the BuildKit and the busybox layer; not counted.
    await buildPush(emu, ws, opts.dist, true, 'warm-a');
    await buildPush(emu, ws, opts.dist, false, 'warm-b');
    for (let i = 0; i < opts.runs; i++) {
      // Interleaved, alternating which goes first, so a change of load hits both alike.
      const order = i % 2 === 0 ? [true, false] : [false, true];
      for (const record of order) {
        const r = await buildPush(emu, ws, opts.dist, record, `${record ? 'rec' : 'none'}-${i}`);
        (record ? withRecord : without).push(r);
      }
    }
  } finally {
    await emu.close();
    ws.cleanup();
  }
  const med = (xs: number[]): number => stats(xs).median;
  const stepAdded = med(withRecord.map(r => r.stepMs)) - med(without.map(r => r.stepMs));
  const billAdded = med(withRecord.map(r => r.billedMs)) - med(without.map(r => r.billedMs));
  const exports = withRecord.flatMap(r => (r.exportMs === undefined ? [] : [r.exportMs]));
  const after = withRecord.flatMap(r => (r.uploadMs === undefined ? [] : [r.uploadMs]));
  const buildx = `buildx ${env.state.buildxVersion}`;
  const single = (v: number) => ({n: opts.runs, median: v, p95: v, min: v, max: v});
  return [
    {
      figure: 'record: step time added',
      case: `${buildx}, median with − median without`,
      unit: 'ms',
      stats: single(stepAdded),
      goal: `< ${STEP_GOAL_MS} ms`,
      met: stepAdded < STEP_GOAL_MS,
      extra: {with: med(withRecord.map(r => r.stepMs)), without: med(without.map(r => r.stepMs))}
    },
    {
      figure: 'record: billed time added',
      case: `${buildx}, median with − median without`,
      unit: 'ms',
      stats: single(billAdded),
      goal: `< ${BILL_GOAL_MS} ms`,
      met: billAdded < BILL_GOAL_MS,
      extra: {with: med(withRecord.map(r => r.billedMs)), without: med(without.map(r => r.billedMs))}
    },
    ...(exports.length > 0
      ? [
          {
            figure: 'record: export before teardown (billed)',
            case: `${buildx}, from the step's log`,
            unit: 'ms',
            stats: stats(exports),
            goal: `< ${BILL_GOAL_MS} ms`,
            met: stats(exports).median < BILL_GOAL_MS,
            extra: {"docker's wait on buildx < 0.24": '3000 ms, builder up'}
          }
        ]
      : []),
    ...(after.length > 0
      ? [
          {
            figure: 'record: upload after teardown (not billed)',
            case: `${buildx}, from the step's log`,
            unit: 'ms',
            stats: stats(after)
          }
        ]
      : [])
  ];
}

/** Runs build-push main once (a new build) with or without the record; returns its times. */
async function buildPush(
  emu: E2eEmulator,
  ws: Workspace,
  dist: string,
  record: boolean,
  name: string
): Promise<RecordRun> {
  const ctx = ws.context(name, {run: `echo ${randomBytes(8).toString('hex')} > /built.txt`});
  const seen = new Map<string, number>();
  const mark = (key: string): void => {
    seen.set(key, Date.now());
  };
  const started = Date.now();
  const main = await runAction({
    script: join(dist, 'build-push', 'main', 'index.js'),
    workDir: ws.jobDir(name),
    inputs: emu.inputs({'profile-name': PROFILE, context: ctx.dir, timeout: '120000'}),
    env: {
      ...ws.dockerEnv(),
      ...emu.artifacts.runnerEnv(),
      GITHUB_REPOSITORY: 'octo-org/octo-repo',
      ...(record ? {} : {DOCKER_BUILD_SUMMARY: 'false'})
    },
    timeoutMs: 240_000,
    onLine: line => {
      if (
        line.startsWith('##[group]Exporting the build record') ||
        line.startsWith('::group::Exporting the build record')
      ) {
        mark('export');
      } else if (seen.has('export') && !seen.has('exported') && /^(##\[endgroup\]|::endgroup::)/.test(line)) {
        mark('exported');
      } else if (line.startsWith('Tore down ')) {
        mark('torn');
      } else if (/^Build record (uploaded|not uploaded)/.test(line)) {
        mark('uploaded');
      }
    }
  });
  const stepMs = Date.now() - started;
  if (main.failed) throw new Error(`build-push main (${name}) failed:\n${main.stdout.slice(-3000)}\n${main.stderr}`);
  const state = main.state['builder'];
  const ids = state ? ((JSON.parse(state) as {builderIds?: string[]}).builderIds ?? []) : [];
  const entries = emu.entries(ids);
  if (entries.length === 0 || entries.some(e => e.terminatedAt === undefined)) {
    throw new Error(`build-push main (${name}) left builders ${ids.join(', ')} untorn`);
  }
  const at = (k: string): number | undefined => seen.get(k);
  const exportAt = at('export');
  const exportedAt = at('exported');
  const tornAt = at('torn');
  const uploadedAt = at('uploaded');
  return {
    stepMs,
    billedMs: entries.reduce((sum, e) => sum + e.billedMs, 0),
    ...(exportAt !== undefined && exportedAt !== undefined ? {exportMs: exportedAt - exportAt} : {}),
    ...(tornAt !== undefined && uploadedAt !== undefined ? {uploadMs: uploadedAt - tornAt} : {})
  };
}
