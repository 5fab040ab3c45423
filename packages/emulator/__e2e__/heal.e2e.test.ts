// End to end: builds that heal themselves, and the cache report, on a real BuildKit. The bundled build-push
// action runs main then post through the runner harness against an emulator whose builders proxy (mutual
// TLS → dockerd's /grpc hijack) to dockerd's BuildKit. Needs scripts/e2e-up.sh.
// 1. A builder's endpoint is killed while a RUN step runs (its status stays "ready": the service has not
//    noticed): the build fails with a lost connection, the builder fails its health check, and the action
//    finishes the build on a new builder, tearing both down.
// 2. The same never-built context twice, on two assignments: every builder proxies to the same BuildKit (as
//    a profile's builders share the profile cache), so the first run is cold and the second fully cached.
import {afterAll, beforeAll, describe, expect, test} from '@jest/globals';
import {randomBytes} from 'node:crypto';
import {writeFileSync} from 'node:fs';
import type {ActionRunResult, JobRunOpts, ProfileConfig} from '../src/index.js';
import {
  actionJob,
  allTornDown,
  assignedIds,
  mustSucceed,
  printed,
  requireE2eEnv,
  runMain,
  runPost,
  type E2eEmulator,
  type E2eEnv,
  type Workspace
} from './e2e-env.js';

const PROFILE = 'e2e-heal-amd64';
const PROFILES: ProfileConfig[] = [{name: PROFILE, architectures: ['amd64'], readyDelayMs: 300}];

/** Build steps of freshContext's Dockerfile that the cache report counts: COPY nonce, COPY busybox, RUN. */
const FRESH_STEPS = 3;

let env: E2eEnv;
let emu: E2eEmulator;
const workspaces: Workspace[] = [];

beforeAll(async () => {
  env = await requireE2eEnv();
  emu = await env.startEmulator({profiles: PROFILES});
  console.log(
    `e2e environment: ${env.state.mode} dockerd ${env.state.dockerVersion}, buildx ${env.state.buildxVersion}, ` +
      `registry ${env.state.registry}; emulator at ${emu.url}`
  );
});

afterAll(async () => {
  if (emu) {
    console.log(`heal e2e ledger (the whole file):\n${emu.ledgerText()}`);
    await emu.close();
  }
  for (const ws of workspaces) ws.cleanup();
});

function workspace(label: string): Workspace {
  const ws = env.workspace(label);
  workspaces.push(ws);
  return ws;
}

/** A value no earlier run used. */
function nonce(): string {
  return randomBytes(8).toString('hex');
}

/**
 * A build context no BuildKit has seen: its first step copies a random file, so every later step (the
 * busybox COPY that other tests' contexts share, then `run`) sits on a new layer and is in no cache.
 */
function freshContext(ws: Workspace, name: string, run: string): {dir: string; nonce: string} {
  const value = nonce();
  const ctx = ws.context(name, {files: {'nonce.txt': `${value}\n`}});
  const script = `/busybox mkdir -p /bin && /busybox --install -s /bin && ${run}`;
  writeFileSync(
    ctx.dockerfile,
    [
      'FROM scratch',
      'COPY nonce.txt /nonce.txt',
      'ARG TARGETARCH',
      'COPY busybox-${TARGETARCH} /busybox',
      `RUN ${JSON.stringify(['/busybox', 'sh', '-c', script])}`,
      ''
    ].join('\n')
  );
  return {dir: ctx.dir, nonce: value};
}

function buildPushJob(ws: Workspace, job: string, inputs: Record<string, string>): JobRunOpts {
  return actionJob({
    action: 'build-push',
    emulator: emu,
    workspace: ws,
    job,
    inputs: {timeout: '120000', 'profile-name': PROFILE, ...inputs}
  });
}

/** Ids of the builders in the ledger now that are not in `before`. */
function newBuilders(before: ReadonlySet<string>): string[] {
  return emu
    .entries()
    .map(e => e.builderId)
    .filter(id => !before.has(id));
}

/** buildx's plain progress lines (`#N …`) a step printed, for the test log and the report. */
function progressLines(result: ActionRunResult): string {
  return printed(result)
    .split('\n')
    .filter(l => /^#\d+ /.test(l))
    .join('\n');
}

/** Main and post of one job, both successful; nothing is left assigned or in DOCKER_CONFIG after post. */
async function runJob(
  ws: Workspace,
  job: JobRunOpts
): Promise<{main: ActionRunResult; post: ActionRunResult; ids: string[]}> {
  const main = mustSucceed('build-push main', await runMain(job));
  const ids = assignedIds(main);
  // Billing stops when the build ends: main tears down.
  expect(emu.reasons(ids)).toEqual(allTornDown(ids));
  const post = mustSucceed('build-push post', await runPost(job, main));
  expect(post.annotations.filter(a => a.level === 'warning' || a.level === 'error')).toEqual([]);
  expect(emu.reasons(ids)).toEqual(allTornDown(ids));
  expect(emu.stillAssigned()).toEqual([]);
  expect(ws.buildxBuilders()).toEqual([]);
  return {main, post, ids};
}

describe('build-push (bundled) heals and reports the cache on a real BuildKit', () => {
  test('a builder killed mid-build: the build finishes on a new builder, is pushed, and both builders are torn down', async () => {
    const ws = workspace('kill');
    const run = nonce();
    const marker = `heal-running-${run}`;
    // The marker is the RUN step's first output: once buildx prints it, the step runs for 6 s more.
    const ctx = freshContext(ws, 'kill', `echo ${marker} && sleep 6 && echo done-${run} > /out`);
    const markerLine = new RegExp(`^#\\d+ \\d+(?:\\.\\d+)? ${marker}$`);
    const repo = env.registry.uniqueRepo('heal');
    const ref = env.registry.ref(repo, 'v1');
    const job = buildPushJob(ws, 'kill', {context: ctx.dir, push: 'true', tags: ref});

    const before = new Set(emu.entries().map(e => e.builderId));
    /** What happened, in the order main's output showed it. */
    const events: string[] = [];
    let killed: {id: string; assignedThen: string[]} | undefined;
    let killError: unknown;
    const main = await runMain(job, {
      onLine: line => {
        if (killed === undefined && killError === undefined && markerLine.test(line)) {
          try {
            const assignedThen = newBuilders(before);
            const id = assignedThen[0] as string;
            emu.emu.setEndpointMode(id, 'kill');
            killed = {id, assignedThen};
            events.push(`killed ${id}`);
          } catch (e) {
            killError = e;
          }
        } else if (line.includes('Retrying the build')) {
          events.push('retry');
        } else if (markerLine.test(line)) {
          events.push('RUN step again');
        }
      }
    });
    console.log(`kill mid-build: main's build progress\n${progressLines(main)}`);
    if (killError !== undefined) throw new Error(`Killing the builder's endpoint failed: ${String(killError)}`);
    // The RUN step was reached on the first builder, and only that one was assigned when it was killed.
    expect(killed).toBeDefined();
    const first = killed?.id as string;
    expect(killed?.assignedThen).toEqual([first]);
    mustSucceed('build-push main', main);
    expect(main.outputs['attempts']).toBe('2');
    expect(main.outputs['time-to-ready']).toMatch(/^\d+$/);

    // Two builders: the killed one, then its replacement; both saved in the state and torn down by main.
    const ids = assignedIds(main);
    expect(ids).toHaveLength(2);
    expect(ids[0]).toBe(first);
    const second = ids[1] as string;
    expect(newBuilders(before).sort()).toEqual([...ids].sort());
    expect(emu.reasons(ids)).toEqual(allTornDown(ids));
    // The lost builder was torn down (its billing stopped) before its replacement was assigned.
    const [lost, replacement] = ids.map(id => emu.entries([id])[0]);
    expect(lost?.terminatedAt).toBeLessThanOrEqual(replacement?.assignedAt ?? -1);

    // The kill came first, then the retry line, then the RUN step ran again on the new builder.
    expect(events).toEqual([`killed ${first}`, 'retry', 'RUN step again']);
    const log = printed(main);
    const retryLine = log.split('\n').find(l => l.includes('Retrying the build')) ?? '';
    expect(retryLine).toContain('Retrying the build (attempt 2 of 2) on a new builder');
    expect(retryLine).toContain(first);
    // What buildx printed when its connection went (the failure the retry classified), and main's annotations.
    const errors = log.split('\n').filter(l => /\bERROR\b/.test(l));
    console.log(
      `kill mid-build: ${retryLine.trim()}\nbuildx's error lines:\n${errors.join('\n')}\n` +
        `main's annotations: ${JSON.stringify(main.annotations.filter(a => a.level !== 'debug'))}`
    );
    expect(main.annotations.filter(a => a.level === 'error')).toEqual([]);

    // The image the second builder built is in the registry.
    const manifest = await env.registry.requireManifest(repo, 'v1');
    expect(main.outputs['digest']).toBe(manifest.digest);
    expect(await env.registry.readFile(repo, 'v1', '/out', 'linux/amd64')).toBe(`done-${run}\n`);
    expect(await env.registry.readFile(repo, 'v1', '/nonce.txt', 'linux/amd64')).toBe(`${ctx.nonce}\n`);

    const post = mustSucceed('build-push post', await runPost(job, main));
    expect(post.annotations.filter(a => a.level === 'warning' || a.level === 'error')).toEqual([]);
    // Nothing billed after post: both builders terminated by a teardown, none left anywhere.
    expect(emu.reasons(ids)).toEqual(allTornDown(ids));
    expect(emu.stillAssigned()).toEqual([]);
    expect(ws.buildxBuilders()).toEqual([]);

    // Post's run report: two attempts, the first an infrastructure failure on the killed builder.
    const summary = post.summary;
    console.log(`kill mid-build: post's job summary\n${summary}`);
    expect(summary).toContain('✅ **Succeeded** after 2 attempts');
    expect(summary).toContain(`1. **infrastructure failure** on \`${first}\``);
    expect(summary).toContain(`2. **succeeded** on \`${second}\``);
    for (const id of ids) expect(summary).toContain(`| \`${id}\` | ${PROFILE} |`);
  });

  test('the same never-built context twice, on two assignments: cold (0/N) then fully cached (N/N)', async () => {
    const ws = workspace('cache');
    const run = nonce();
    const ctx = freshContext(ws, 'cache', `echo cached-${run} > /out`);
    const repo = env.registry.uniqueRepo('heal-cache');

    const cold = await runJob(
      ws,
      buildPushJob(ws, 'cold', {context: ctx.dir, push: 'true', tags: env.registry.ref(repo, 'cold')})
    );
    console.log(
      `cold run: build progress\n${progressLines(cold.main)}\ncold run: post's job summary\n${cold.post.summary}`
    );
    const warm = await runJob(
      ws,
      buildPushJob(ws, 'warm', {context: ctx.dir, push: 'true', tags: env.registry.ref(repo, 'warm')})
    );
    console.log(
      `warm run: build progress\n${progressLines(warm.main)}\nwarm run: post's job summary\n${warm.post.summary}`
    );

    // Each run had its own builder.
    expect(cold.ids).toHaveLength(1);
    expect(warm.ids).toHaveLength(1);
    expect(warm.ids[0]).not.toBe(cold.ids[0]);

    const n = FRESH_STEPS;
    // (The progress each run printed is logged above: what the counts were read from.)
    expect(cold.main.outputs).toMatchObject({attempts: '1', 'cached-steps': `0/${n}`, 'cache-ratio': '0.00'});
    expect(cold.post.summary).toContain(`${n} build steps, 0 from the cache (0%): **cold** builder`);
    expect(warm.main.outputs).toMatchObject({attempts: '1', 'cached-steps': `${n}/${n}`, 'cache-ratio': '1.00'});
    expect(warm.post.summary).toContain(`${n} build steps, ${n} from the cache (100%): **warm** builder`);

    // Both runs pushed the image the context describes.
    for (const tag of ['cold', 'warm']) {
      const main = tag === 'cold' ? cold.main : warm.main;
      expect(main.outputs['digest']).toBe((await env.registry.requireManifest(repo, tag)).digest);
      expect(await env.registry.readFile(repo, tag, '/out', 'linux/amd64')).toBe(`cached-${run}\n`);
    }
  });
});
