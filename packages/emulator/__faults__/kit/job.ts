// One job of a fault scenario: main, then post (as often as asked), each a child process started by the
// runner harness, against one emulator, with the recording fake docker on PATH. Between the steps the
// certificate folder main left is inspected (0700 folders, 0600 files); after post it must be gone.
import {existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {
  Emulator,
  runAction,
  type ActionRunResult,
  type BuildkitEmulation,
  type CancelTimings,
  type ProfileConfig,
  type SignalSpec
} from '@remote-builder-actions/emulator';
import {Env} from '@remote-builder-actions/core';
import {FAKE_DOCKER_BIN, type ActionUnderTest} from './actions.js';
import {scanSteps, secretsOf, type Leak} from './secret-scan.js';

export const API_KEY = 'rb_faults_key_3c9e1f7a2b8d';

/** Profiles of every scenario's emulator. */
export const PROFILES: ProfileConfig[] = [
  {name: 'p', readyDelayMs: 150},
  {name: 'p2', readyDelayMs: 150},
  {name: 'slow', readyDelayMs: 600_000}
];

/**
 * The time budgets of every fault job, in place of the actions' defaults (teardown: 15 s in main, 30 s in post;
 * a fresh builder's details 404 means "not visible yet" for 10 s), which are sized for a real service. The
 * emulator answers in milliseconds, so seconds prove the same thing (the rounds stop when the budget is spent,
 * the warning names what may be billed, a 404 past the grace means gone) without holding a step 45 s. A job's
 * own env overrides them; core's unit tests cover the defaults. No scenario waits out the teardown budget unless
 * it sets its own (the refused-teardown ones: 2 s): this one only bounds a teardown that succeeds, the one the
 * emulator delays by 1.2 s (a signal during post) and two retries with backoff (500 ms, 1 s), with room for a
 * loaded machine (4 s ran out once: the emulator lives in the jest worker, which runs 8 jobs at once).
 */
export const FAULT_BUDGETS: Record<string, string> = {
  [Env.TeardownTimeoutMs]: '15000',
  [Env.Details404GraceMs]: '2000'
};

/**
 * The `timeout` input of a job that does not set its own: only the scenarios that set one wait it out, so this
 * bounds a wait that succeeds, with room for a loaded machine (10 s ran out once, a readiness proof starved).
 */
export const JOB_TIMEOUT_MS = 30_000;

/** A fresh emulator (its own ledger and faults) for one scenario. */
export function startEmulator(profiles: ProfileConfig[] = PROFILES, buildkit?: BuildkitEmulation): Promise<Emulator> {
  return Emulator.start({profiles, apiKeys: [{key: API_KEY, scopes: ['builders']}], buildkit});
}

export interface JobOpts {
  action: ActionUnderTest;
  emu: Emulator;
  /**
   * Over the defaults: api-url, api-key, profile-name "p", timeout JOB_TIMEOUT_MS, and the action's own inputs.
   */
  inputs?: Record<string, string>;
  /** Inputs removed from the defaults (e.g. api-key). */
  without?: string[];
  /** Appended to the emulator's URL for the default api-url (e.g. a wrong path prefix). */
  apiUrlSuffix?: string;
  env?: Record<string, string>;
  mainSignals?: SignalSpec[];
  cancelLikeRunner?: boolean;
  cancelTimings?: CancelTimings;
  postSignals?: SignalSpec[];
  /** How many times post runs (with main's state each time); default 1. */
  posts?: number;
  /** Run post only, as after a main that saved nothing. */
  skipMain?: boolean;
  timeoutMs?: number;
}

/** What main left in its certificate folder while it existed. */
export interface CertCheck {
  certDir?: string;
  /** Problems with modes (empty when every folder is 0700 and every file 0600). */
  modeProblems: string[];
  files: number;
  /** The folder still exists after the last post. */
  leftAfterPost: boolean;
}

export interface JobResult {
  main?: ActionRunResult;
  posts: ActionRunResult[];
  work: string;
  certs: CertCheck;
  /** Every `docker` argv the fake docker recorded, in order. */
  dockerCalls: string[][];
  /** buildx builders the fake docker still knows after the last post. */
  buildersLeft: string[];
  /** The builder state main saved (parsed), if any. */
  state?: {builderIds: string[]; tornDownIds: string[]; builderName: string; certDir: string};
  /** Secret-scan hits over every step of the job. */
  leaks: Leak[];
  /** Every warning annotation of every step. */
  warnings: string[];
  /** main's error annotation, '' when none. */
  error: string;
}

/** Runs a job and scans it for secrets (the emulator's API key and every client key it issued so far). */
export async function runJob(opts: JobOpts): Promise<JobResult> {
  const {action, emu} = opts;
  const work = mkdtempSync(join(tmpdir(), `faults-${action.name}-`));
  const inputs: Record<string, string> = {
    'api-url': emu.url + (opts.apiUrlSuffix ?? ''),
    'api-key': API_KEY,
    'profile-name': 'p',
    timeout: String(JOB_TIMEOUT_MS),
    ...action.inputs,
    ...opts.inputs
  };
  for (const k of opts.without ?? []) delete inputs[k];
  const env: Record<string, string> = {
    PATH: `${FAKE_DOCKER_BIN}:${process.env['PATH'] ?? ''}`,
    FAKE_DOCKER_DIR: join(work, 'docker'),
    // The fake docker keeps builders in buildx's own records there, as buildx does (the config dir is the job's).
    DOCKER_CONFIG: join(work, 'docker-config'),
    ...FAULT_BUDGETS,
    ...opts.env
  };
  const workspace = join(work, 'workspace');
  mkdirSync(workspace, {recursive: true});
  for (const [f, text] of Object.entries(action.workspace ?? {})) writeFileSync(join(workspace, f), text);

  const timeoutMs = opts.timeoutMs ?? 60_000;
  const main = opts.skipMain
    ? undefined
    : await runAction({
        script: action.main,
        inputs,
        env,
        workDir: work,
        timeoutMs,
        ...(opts.mainSignals ? {signals: opts.mainSignals} : {}),
        ...(opts.cancelLikeRunner ? {cancelLikeRunner: true} : {}),
        ...(opts.cancelTimings ? {cancelTimings: opts.cancelTimings} : {})
      });

  const state = main?.state['builder']
    ? (JSON.parse(main.state['builder']) as NonNullable<JobResult['state']>)
    : undefined;
  const certs = inspectCerts(state?.certDir);

  const posts: ActionRunResult[] = [];
  for (let i = 0; i < (opts.posts ?? 1); i++) {
    posts.push(
      await runAction({
        script: action.post,
        inputs,
        // The runner: the job env, then main's GITHUB_ENV exports; main's GITHUB_STATE as STATE_*.
        env: {...env, ...main?.exportedEnv},
        state: main?.state ?? {},
        prependPath: main?.path ?? [],
        workDir: work,
        timeoutMs,
        ...(opts.postSignals ? {signals: opts.postSignals} : {})
      })
    );
  }
  certs.leftAfterPost = certs.certDir !== undefined && existsSync(certs.certDir);

  const steps = [...(main ? [{label: `${action.name} main`, result: main}] : [])].concat(
    posts.map((p, i) => ({label: `${action.name} post #${i + 1}`, result: p}))
  );
  const leaks = scanSteps(steps, secretsOf([API_KEY], emu.issuedClientKeys()));
  const warnings = steps.flatMap(s => s.result.annotations.filter(a => a.level === 'warning').map(a => a.message));
  const error = main?.annotations.find(a => a.level === 'error')?.message ?? '';
  const dockerCalls = readDockerCalls(join(work, 'docker'));
  const store = join(work, 'docker', 'builders.json');
  const buildersLeft = existsSync(store) ? Object.keys(JSON.parse(readFileSync(store, 'utf8')) as object) : [];
  return {
    ...(main ? {main} : {}),
    posts,
    work,
    certs,
    dockerCalls,
    buildersLeft,
    ...(state ? {state} : {}),
    leaks,
    warnings,
    error
  };
}

/** Removes a job's folder. */
export function removeJob(job: JobResult): void {
  rmSync(job.work, {recursive: true, force: true});
}

function inspectCerts(certDir: string | undefined): CertCheck {
  const check: CertCheck = {modeProblems: [], files: 0, leftAfterPost: false};
  if (!certDir) return check;
  check.certDir = certDir;
  if (!existsSync(certDir)) return check;
  const walk = (path: string): void => {
    const st = statSync(path);
    const mode = st.mode & 0o777;
    if (st.isDirectory()) {
      if (mode !== 0o700) check.modeProblems.push(`${path} is a folder with mode ${mode.toString(8)}`);
      for (const e of readdirSync(path)) walk(join(path, e));
    } else {
      check.files++;
      if (mode !== 0o600) check.modeProblems.push(`${path} is a file with mode ${mode.toString(8)}`);
    }
  };
  walk(certDir);
  return check;
}

function readDockerCalls(dir: string): string[][] {
  const file = join(dir, 'calls.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .filter(l => l !== '')
    .map(l => (JSON.parse(l) as {argv: string[]}).argv);
}
