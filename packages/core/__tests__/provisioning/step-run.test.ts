import {afterEach, beforeEach, describe, expect, test} from '@jest/globals';
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {Buildx} from '../../src/buildx/buildx.js';
import type {ProvisionedBuilder} from '../../src/lifecycle/builder-lifecycle.js';
import {assignTimeoutFor} from '../../src/provisioning/builder-api-factory.js';
import {BUILDER_NAME, newBuilderName} from '../../src/lifecycle/builder-name.js';
import {LOCAL_CHECKS_GROUP} from '../../src/provisioning/local-checks.js';
import {StepRun} from '../../src/provisioning/step-run.js';
import {loadBuilderState, MemoryStateStore} from '../../src/state.js';
import {assigned, FakeBuilderApi, readyDetails} from '../fakes/fake-builder-api.js';
import {FakeClock} from '../fakes/fake-clock.js';
import {FakeExec, subcommand} from '../fakes/fake-exec.js';
import {FakeProbe} from '../fakes/fake-probe.js';
import {RecordingLogger} from '../fakes/recording-logger.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'step-run-test-'));
});
afterEach(async () => {
  await rm(root, {recursive: true, force: true});
});

function harness(opts: {version?: () => {exitCode?: number; stdout?: string; stderr?: string}} = {}) {
  const api = new FakeBuilderApi();
  const logger = new RecordingLogger();
  const state = new MemoryStateStore();
  const made: {apiUrl: string; token: string}[] = [];
  let closed = 0;
  const exec = new FakeExec(c =>
    subcommand(c.args) === 'version' ? (opts.version?.() ?? {stdout: 'github.com/docker/buildx v0.13.1 abc\n'}) : {}
  );
  const run = new StepRun({
    action: 'configure',
    summary: true,
    env: {},
    apiUrl: 'https://api.example.com',
    token: 'k',
    state,
    logger,
    // A failed rm makes Buildx forget the builder's local state: never in ~/.docker.
    buildx: new Buildx({exec, logger, env: {BUILDX_CONFIG: join(tmpdir(), `rb-test-buildx-${process.pid}`)}}),
    timeoutMs: 2000,
    timeoutName: '--timeout',
    makeApi: (apiUrl, token) => {
      made.push({apiUrl, token});
      return Object.assign(api, {close: () => void closed++});
    },
    certRoot: root,
    builderName: 'rb',
    clock: new FakeClock(),
    probe: new FakeProbe().probe,
    schedule: {intervalMs: 100, probeIntervalMs: 50, maxBackoffMs: 400}
  });
  return {api, logger, state, exec, run, made, closed: () => closed};
}

function builderWith(platforms: string[][]): ProvisionedBuilder {
  return {
    name: 'rb',
    profile: 'multi',
    builderIds: platforms.map((_p, i) => `b${i}`),
    nodes: platforms.map((p, i) => ({
      name: `b${i}`,
      builderId: `b${i}`,
      endpoint: 'tcp://h:1',
      platforms: p,
      certs: {cacert: '', cert: '', key: ''}
    })),
    platforms: platforms.flat(),
    certDir: root,
    timeToReadyMs: 1,
    buildxCreated: true,
    ready: []
  };
}

describe('builder names', () => {
  test('one rule, one generator', () => {
    const name = newBuilderName();
    expect(name).toMatch(/^remote-builder-[0-9a-f]{8}$/);
    expect(BUILDER_NAME.test(name)).toBe(true);
    expect(BUILDER_NAME.test('-x')).toBe(false);
  });
});

describe('the assignment limit', () => {
  test('the readiness timeout plus the in-flight grace plus a second: never cut at the 15 s per-request limit', () => {
    // 600 s of readiness + 5 s for an assignment in flight + 1 s.
    expect(assignTimeoutFor(600000)).toBe(606000);
  });
});

describe('StepRun', () => {
  test('the injected factory makes the client on first use, with the URL and key; close() releases it once', () => {
    const h = harness();
    expect(h.made).toEqual([]);
    expect(h.run.api).toBe(h.api);
    expect(h.made).toEqual([{apiUrl: 'https://api.example.com', token: 'k'}]);
    h.run.close();
    h.run.close();
    expect(h.closed()).toBe(1);
  });

  test("the lifecycle's events land in the run record: assigned, ready, torn down; keep() ends it a success", async () => {
    const h = harness();
    h.api.onAssign('amd', assigned('b1')).onDetails('b1', readyDetails('10.0.0.1:1', {arch: 'arm64'}));
    const b = await h.run.provision({profiles: ['amd'], setupBuildx: true, use: false});
    h.run.keep(b);
    const kept = JSON.parse(h.state.get('run')) as Record<string, unknown>;
    expect(kept).toMatchObject({outcome: 'success', result: {builder: 'rb'}});
    expect(kept['builders']).toEqual([
      expect.objectContaining({id: 'b1', profile: 'amd', arch: 'arm64', readyAt: expect.any(Number)})
    ]);
    await h.run.release('after the test');
    expect(JSON.parse(h.state.get('run'))).toMatchObject({builders: [{id: 'b1', teardown: 'torn-down'}]});
  });

  test('a failed acquire ends the record with its outcome', async () => {
    const h = harness();
    const err = await h.run.acquire({profiles: [], setupBuildx: false, use: false}).catch((e: unknown) => e);
    expect((err as Error).message).toBe('no builder profile given');
    expect(JSON.parse(h.state.get('run'))).toMatchObject({outcome: 'failure', errorTail: ['no builder profile given']});
  });

  test('local checks: buildx, platform form and the command, in their own group, before anything is assigned', async () => {
    const h = harness();
    const res = await h.run.checkLocal({
      buildx: {},
      platforms: {values: ['linux/amd64'], name: '--platforms'},
      command: {name: process.execPath, env: {}, cwd: root},
      more: async version => `gates for ${version}`
    });
    expect(res).toEqual({buildxVersion: '0.13.1', more: 'gates for 0.13.1'});
    expect(h.logger.groups).toEqual([LOCAL_CHECKS_GROUP]);
    await expect(h.run.checkLocal({platforms: {values: ['linux/amd64x'], name: '--platforms'}})).rejects.toThrow(
      '"linux/amd64x" is not a platform'
    );
    expect(h.api.assignCalls).toEqual([]);
  });

  test("a missing buildx keeps docker's reason and our advice once, then the alternative and the note", async () => {
    const h = harness({version: () => ({exitCode: 127, stderr: 'docker: not found'})});
    const e = await h.run
      .checkLocal({buildx: {note: 'nothing was assigned', alternative: 'set "setup-buildx: false"'}})
      .then(
        () => undefined,
        (err: unknown) => err as Error
      );
    expect(e?.message).toMatch(
      /^docker buildx is not available: .*docker: not found.*, or set "setup-buildx: false"; nothing was assigned$/
    );
    expect(e?.message).not.toMatch(/setup-buildx-action|cancel/i);
  });

  test('provision: assigns, readies, sets up buildx; release tears down in its own group', async () => {
    const h = harness();
    h.api.onAssign('amd', assigned('b1')).onDetails('b1', readyDetails('10.0.0.1:1', {arch: 'amd64'}));
    const b = await h.run.provision({profiles: ['amd'], setupBuildx: true, use: false});
    expect(b).toMatchObject({name: 'rb', profile: 'amd', builderIds: ['b1'], buildxCreated: true});
    expect(loadBuilderState(h.state)).toMatchObject({builderIds: ['b1'], tornDownIds: []});
    const report = await h.run.release('after the test');
    expect(report.tornDown).toEqual(['b1']);
    expect(h.logger.groups.at(-1)).toBe('Tearing down the builders');
    expect(h.logger.messages('info')).toContain('Tore down b1 after the test');
    expect(loadBuilderState(h.state)).toMatchObject({builderIds: ['b1'], tornDownIds: ['b1'], buildxCreated: false});
  });

  test('a timeout is explained with the setting to raise', async () => {
    const h = harness();
    h.api
      .onAssign('amd', assigned('b1'))
      .onDetails('b1', ...Array(100).fill(readyDetails('10.0.0.1:1', {status: 'starting'})));
    const err = await h.run
      .provision({profiles: ['amd'], setupBuildx: false, use: false, timeoutMs: 300})
      .catch((e: unknown) => e as Error);
    expect((err as Error).message).toMatch(
      /Timed out after 300 ms: raise --timeout if the profile needs longer to start$/
    );
    expect(h.api.tornDown).toEqual(['b1']);
  });

  describe("checkOffered: the actions' platform guard", () => {
    test.each([['linux/arm64/v8'], ['linux/386'], ['linux/x86_64'], ['arm64'], ['linux/amd64,linux/arm64']])(
      '%s passes on amd64 + arm64 nodes',
      requested => {
        const h = harness();
        expect(() =>
          h.run.checkOffered(builderWith([['linux/amd64'], ['linux/arm64']]), requested.split(','), '--platforms')
        ).not.toThrow();
      }
    );

    test('an architecture no node runs fails, naming it, what the nodes have and the fix', () => {
      const h = harness();
      expect(() => h.run.checkOffered(builderWith([['linux/amd64']]), ['linux/arm64/v8'], '--platforms')).toThrow(
        '--platforms asks for arm64, but no node of builder "rb" offers it (it has amd64, 386); builds for it would fail with "exec format error". Fix: enable arm64 on builder profile "multi" in the web UI, or leave it out of --platforms'
      );
    });

    test('nodes that report no platforms: a warning, no failure', () => {
      const h = harness();
      h.run.checkOffered(builderWith([[]]), ['linux/arm64'], '--platforms');
      expect(h.logger.messages('warning')).toEqual([
        'Cannot check --platforms against builder "rb": its nodes report no platforms'
      ]);
    });
  });
});
