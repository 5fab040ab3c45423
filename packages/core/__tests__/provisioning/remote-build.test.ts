import {afterEach, beforeEach, describe, expect, test} from '@jest/globals';
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {Buildx} from '../../src/buildx/buildx.js';
import {runRemoteBuild, type BuildTarget, type RemoteBuildOpts} from '../../src/provisioning/remote-build.js';
import {cancellation} from '../../src/provisioning/cancellation.js';
import {requireBuildx} from '../../src/provisioning/local-checks.js';
import {platformShortfall} from '../../src/provisioning/platform-shortfall.js';
import type {PollSchedule} from '../../src/lifecycle/readiness.js';
import {ApiError} from '../../src/errors.js';
import {loadRun} from '../../src/report/run-recorder.js';
import {loadBuilderState} from '../../src/state.js';
import {FakeActionIO} from '../fakes/fake-action-io.js';
import {assigned, FakeBuilderApi, readyDetails} from '../fakes/fake-builder-api.js';
import {FakeClock} from '../fakes/fake-clock.js';
import {FakeExec, subcommand} from '../fakes/fake-exec.js';
import {FakeProbe} from '../fakes/fake-probe.js';

const schedule: PollSchedule = {intervalMs: 100, probeIntervalMs: 50, maxBackoffMs: 400};
const VERSION = 'github.com/docker/buildx v0.13.1 abc\n';
const INSPECT = 'Name: rb\nDriver: remote\n\nName: b1\nBuildKit version: v0.13.2\nPlatforms: linux/amd64*\n';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'remote-build-test-'));
});
afterEach(async () => {
  await rm(root, {recursive: true, force: true});
});

function harness(inputs: Record<string, string> = {}) {
  const events: string[] = [];
  const api = new FakeBuilderApi(events);
  const io = new FakeActionIO(inputs, {RUNNER_TEMP: root});
  const exec = new FakeExec(c => {
    events.push(`docker:${subcommand(c.args)}`);
    if (subcommand(c.args) === 'version') return {stdout: VERSION};
    return subcommand(c.args) === 'inspect' ? {stdout: INSPECT} : {};
  });
  let closed = 0;
  const opts = <P, R>(over: Partial<RemoteBuildOpts<P, R>>): RemoteBuildOpts<P, R> => ({
    io,
    buildx: new Buildx({exec, logger: io.logger}),
    builder: '',
    profiles: ['amd'],
    timeoutMs: 10_000,
    apiUrl: 'https://api.example.com',
    credentials: {token: 'k', source: 'input'},
    inputNames: {builder: 'builder', profileName: 'profile-name', timeout: 'timeout'},
    makeApi: () =>
      Object.assign(api, {
        close: () => {
          closed++;
        }
      }),
    clock: new FakeClock(),
    probe: new FakeProbe().probe,
    schedule,
    builderName: 'rb',
    prepare: async () => undefined as P,
    build: async () => undefined as R,
    ...over
  });
  return {events, api, io, exec, opts, closed: () => closed};
}

describe('runRemoteBuild on an assigned builder', () => {
  test('prepare runs before anything is assigned; build gets the ready builder; teardown right after', async () => {
    const h = harness();
    h.api.onAssign('amd', assigned('b1')).onDetails('b1', readyDetails('10.0.0.1:1234', {arch: 'amd64'}));
    let seen: BuildTarget | undefined;
    const res = await runRemoteBuild<string, string>(
      h.opts({
        prepare: async () => {
          h.events.push('prepare');
          return 'prepared';
        },
        build: async (prepared, target) => {
          h.events.push(`build:${prepared}`);
          seen = target;
          return 'built';
        }
      })
    );
    expect(res).toBe('built');
    // The local checks (buildx version, then the action's own) come before the assignment.
    expect(h.events.slice(0, 3)).toEqual(['docker:version', 'prepare', 'assign:amd']);
    expect(h.events.slice(-3)).toEqual(['build:prepared', 'teardown:b1', 'docker:rm']);
    expect(seen).toMatchObject({
      name: 'rb',
      profile: 'amd',
      nodes: [{builder: 'rb', node: 'b1', platforms: ['linux/amd64']}],
      inspect: {driver: 'remote', nodes: [{name: 'b1', buildkit: 'v0.13.2'}]}
    });
    expect(loadBuilderState(h.io.state)?.tornDownIds).toEqual(['b1']);
    expect(h.io.logger.messages('info').some(l => /Tore down b1 after the build; billing stopped/.test(l))).toBe(true);
    expect(h.closed()).toBe(1);
  });

  test('a failing prepare (no buildx, a bad bake file) fails before anything is assigned: nothing billed', async () => {
    const h = harness();
    h.api.onAssign('amd', assigned('b1')).onDetails('b1', readyDetails('10.0.0.1:1234', {arch: 'amd64'}));
    const err = await runRemoteBuild(
      h.opts({
        prepare: async () => {
          throw new Error('no buildx');
        }
      })
    ).catch(e => e as Error);
    expect((err as Error).message).toBe('no buildx');
    expect(h.api.assignCalls).toEqual([]);
    expect(h.api.teardownCalls).toEqual([]);
    // Not even an API client is made before the local checks pass.
    expect(h.closed()).toBe(0);
  });

  test('the job summary record: what the build reported it produced, setup apart from build and push time', async () => {
    const h = harness();
    h.api.onAssign('amd', assigned('b1')).onDetails('b1', readyDetails('10.0.0.1:1234', {arch: 'amd64'}));
    await runRemoteBuild(
      h.opts({
        build: async (_p, target, ctx) => {
          ctx.reportRun({buildMs: 4200, output: ''});
          ctx.reportResult({builder: target.name, image: {digest: 'sha256:d', tags: ['u/a:1']}});
        }
      })
    );
    const run = loadRun(h.io.state);
    expect(run).toMatchObject({
      action: 'build-push',
      outcome: 'success',
      result: {builder: 'rb', image: {digest: 'sha256:d', tags: ['u/a:1']}},
      timing: {buildMs: 4200, setupMs: expect.any(Number)}
    });
  });

  test('a local fallback build: the record says on which fallback builder and why', async () => {
    const h = harness();
    const unavailable = new ApiError({call: 'assign', status: 503});
    h.api.onAssign('amd', unavailable, unavailable, unavailable, unavailable);
    await runRemoteBuild(
      h.opts({
        fallback: 'local',
        exec: h.exec,
        build: async (_p, target, ctx) => {
          ctx.reportRun({buildMs: 2500, output: ''});
          ctx.reportResult({builder: target.name, image: {tags: []}});
        }
      })
    );
    expect(loadRun(h.io.state)).toMatchObject({
      outcome: 'success',
      result: {fallback: 'the service answered HTTP 503', image: {tags: []}},
      timing: {buildMs: 2500, setupMs: expect.any(Number)}
    });
  });

  test('a failing build tears down before the error propagates', async () => {
    const h = harness();
    h.api.onAssign('amd', assigned('b1')).onDetails('b1', readyDetails('10.0.0.1:1234', {arch: 'amd64'}));
    await expect(
      runRemoteBuild(
        h.opts({
          build: async () => {
            throw new Error('build failed');
          }
        })
      )
    ).rejects.toThrow('build failed');
    expect(h.api.teardownCalls.map(c => c.id)).toEqual(['b1']);
    expect(h.events.slice(-2).sort()).toEqual(['docker:rm', 'teardown:b1']);
  });
});

describe('runRemoteBuild on a shared builder', () => {
  test('nothing is assigned; the builder is inspected; a profile-name next to it is warned about (the migration trap)', async () => {
    const h = harness({'profile-name': 'p'});
    let seen: BuildTarget | undefined;
    await runRemoteBuild(
      h.opts({
        builder: 'shared',
        credentials: undefined,
        build: async (_p, target) => {
          seen = target;
        }
      })
    );
    expect(h.api.assignCalls).toEqual([]);
    expect(h.exec.argvs).toEqual([
      ['buildx', 'version'],
      ['buildx', 'inspect', '--bootstrap', '--builder', 'shared']
    ]);
    expect(seen?.nodes).toEqual([{builder: 'shared', node: 'b1', platforms: ['linux/amd64']}]);
    expect(seen?.profile).toBeUndefined();
    const [warning, ...others] = h.io.logger.messages('warning');
    expect(others).toEqual([]);
    expect(warning).toContain('Both "builder" and "profile-name" are set: the build runs on builder "shared"');
    expect(warning).toContain('NO remote builder is assigned from "profile-name" (p)');
    expect(warning).toContain('remove the "builder" input to build on a remote builder from "profile-name"');
  });

  test('records the step for post (nothing assigned, nothing billed): result, build time, outcome', async () => {
    const h = harness();
    await runRemoteBuild(
      h.opts({
        builder: 'shared',
        credentials: undefined,
        report: {action: 'bake', summary: true},
        build: async (_p, target, ctx) => {
          ctx.reportRun({buildMs: 3100, output: ''});
          ctx.reportResult({builder: target.name, targets: [{name: 't', platforms: []}]});
        }
      })
    );
    expect(loadRun(h.io.state)).toMatchObject({
      action: 'bake',
      outcome: 'success',
      summary: true,
      builders: [],
      result: {builder: 'shared', targets: [{name: 't', platforms: []}]},
      timing: {buildMs: 3100, setupMs: expect.any(Number)}
    });

    const failed = harness();
    const err = await runRemoteBuild(
      failed.opts({
        builder: 'shared',
        credentials: undefined,
        build: async () => {
          throw new Error('build failed');
        }
      })
    ).catch(e => e as Error);
    expect((err as Error).message).toBe('build failed');
    expect(loadRun(failed.io.state)).toMatchObject({outcome: 'failure', phase: 'build', errorTail: ['build failed']});
  });

  test('no warning when only "builder" is set', async () => {
    const h = harness();
    await runRemoteBuild(h.opts({builder: 'shared', credentials: undefined}));
    expect(h.io.logger.messages('warning')).toEqual([]);
  });

  test('an unknown builder: the error names the input and the fix', async () => {
    const h = harness();
    h.exec.handler = c =>
      subcommand(c.args) === 'version' ? {stdout: VERSION} : {exitCode: 1, stderr: 'ERROR: no builder "nope" found\n'};
    await expect(runRemoteBuild(h.opts({builder: 'nope', credentials: undefined}))).rejects.toThrow(
      /^Input "builder": .*no builder "nope" found\. Create the builder in an earlier step .* or leave "builder" empty to assign one from "profile-name"$/
    );
  });
});

describe('platformShortfall', () => {
  const node = (platforms: string[]) => ({builder: 'b', node: 'n', platforms});
  test('names the missing architectures, what the nodes have, and the fix for a profile or a builder', () => {
    expect(
      platformShortfall({nodes: [node(['linux/amd64'])], profile: 'p'}, ['linux/amd64', 'linux/arm64/v8'])
    ).toEqual({missing: ['arm64'], has: 'amd64, 386', fix: 'enable arm64 on builder profile "p" in the web UI'});
    expect(platformShortfall({nodes: [node(['linux/amd64'])]}, ['linux/arm64'])?.fix).toBe(
      'use a builder with a arm64 node (e.g. made by the configure action from a profile with arm64 enabled)'
    );
  });

  test('nothing missing, or nodes that report no platforms: undefined', () => {
    expect(platformShortfall({nodes: [node(['linux/amd64']), node(['linux/arm64'])]}, ['linux/arm64'])).toBeUndefined();
    expect(platformShortfall({nodes: [node([])]}, ['linux/arm64'])).toBeUndefined();
  });
});

describe('requireBuildx and cancellation', () => {
  test('a missing buildx names the fix', async () => {
    const io = new FakeActionIO();
    const buildx = new Buildx({exec: new FakeExec(() => ({exitCode: 127, stderr: 'docker: not found'}))});
    await expect(requireBuildx(buildx, io)).rejects.toThrow(
      /^docker buildx is not available: .*docker: not found.*: check or reinstall the buildx plugin on the runner/
    );
  });

  test('the cancellation names the signal and the phase', () => {
    const c = new AbortController();
    c.abort(new Error('Cancelled by SIGINT'));
    expect(cancellation(c.signal, 'during the bake').message).toBe('Cancelled by SIGINT during the bake');
    expect(cancellation(undefined, 'during the bake').message).toBe('Cancelled during the bake');
  });
});
