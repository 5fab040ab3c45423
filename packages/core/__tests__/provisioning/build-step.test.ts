import {afterEach, beforeEach, describe, expect, test} from '@jest/globals';
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {Buildx} from '../../src/buildx/buildx.js';
import type {BuildTarget} from '../../src/provisioning/build-target.js';
import {cancellation} from '../../src/provisioning/cancellation.js';
import {requireBuildx} from '../../src/provisioning/local-checks.js';
import {ApiError} from '../../src/errors.js';
import {CancelledError} from '../../src/lifecycle/cancelled-error.js';
import {loadRun} from '../../src/report/run-recorder.js';
import {loadBuilderState} from '../../src/state.js';
import {FakeActionIO} from '../fakes/fake-action-io.js';
import {assigned, httpError, readyDetails} from '../fakes/fake-builder-api.js';
import {BuildCommandError} from '../../src/provisioning/build-attempts.js';
import {FakeExec, subcommand} from '../fakes/fake-exec.js';
import {buildStepHarness, REMOTE, VERSION} from './build-step-harness.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'build-step-test-'));
});
afterEach(async () => {
  await rm(root, {recursive: true, force: true});
});

const STREAM_LOST =
  '#12 [3/3] RUN make\nERROR: failed to receive status: rpc error: code = Unavailable desc = error reading from server: EOF\n';

const harness = (inputs: Record<string, string> = REMOTE) => buildStepHarness({root, inputs});

describe('a build step on an assigned builder', () => {
  test('the local checks run before anything is assigned; build gets the ready builder; teardown right after; outputs', async () => {
    const h = harness();
    h.api.onAssign('amd', assigned('b1')).onDetails('b1', readyDetails('10.0.0.1:1234', {arch: 'amd64'}));
    let seen: BuildTarget | undefined;
    const res = await h.run(
      async target => {
        h.events.push('build');
        seen = target;
        return 'built';
      },
      async () => h.events.push('checks')
    );
    expect(res).toBe('built');
    // The local checks (buildx version, then the action's own) come before the assignment.
    expect(h.events.slice(0, 3)).toEqual(['docker:version', 'checks', 'assign:amd']);
    expect(h.events.slice(-3)).toEqual(['build', 'teardown:b1', 'docker:rm']);
    expect(seen).toMatchObject({
      name: 'rb',
      profile: 'amd',
      nodes: [{builder: 'rb', node: 'b1', platforms: ['linux/amd64']}],
      inspect: {driver: 'remote', nodes: [{name: 'b1', buildkit: 'v0.13.2'}]}
    });
    expect(loadBuilderState(h.io.state)?.tornDownIds).toEqual(['b1']);
    expect(h.io.logger.messages('info').some(l => /Tore down b1 after the build; billing stopped/.test(l))).toBe(true);
    expect(h.closed()).toBe(1);
    expect(Object.fromEntries(h.io.outputs)).toEqual({attempts: '1', 'time-to-ready': expect.any(String)});
  });

  test("a failing local check (the action's own, e.g. a bad bake file) fails before anything is assigned: nothing billed", async () => {
    const h = harness();
    h.api.onAssign('amd', assigned('b1')).onDetails('b1', readyDetails('10.0.0.1:1234', {arch: 'amd64'}));
    const err = await h
      .run(
        async () => undefined,
        async () => {
          throw new Error('no buildx');
        }
      )
      .catch((e: unknown) => e as Error);
    expect((err as Error).message).toBe('no buildx');
    expect(h.api.assignCalls).toEqual([]);
    expect(h.api.teardownCalls).toEqual([]);
    // Not even an API client is made before the local checks pass.
    expect(h.closed()).toBe(0);
  });

  test('the job summary record: what the build reported it produced, setup apart from build and push time', async () => {
    const h = harness();
    h.api.onAssign('amd', assigned('b1')).onDetails('b1', readyDetails('10.0.0.1:1234', {arch: 'amd64'}));
    await h.run(async (target, ctx) => {
      ctx.reportRun({buildMs: 4200, output: ''});
      ctx.reportResult({builder: target.name, image: {digest: 'sha256:d', tags: ['u/a:1']}});
    });
    const run = loadRun(h.io.state);
    expect(run).toMatchObject({
      action: 'build-push',
      outcome: 'success',
      result: {builder: 'rb', image: {digest: 'sha256:d', tags: ['u/a:1']}},
      timing: {buildMs: 4200, setupMs: expect.any(Number)}
    });
  });

  test('a local fallback build: the record says on which fallback builder and why', async () => {
    const h = harness({...REMOTE, fallback: 'local'});
    const unavailable = new ApiError({call: 'assign', status: 503});
    h.api.onAssign('amd', unavailable, unavailable, unavailable, unavailable);
    await h.run(async (target, ctx) => {
      ctx.reportRun({buildMs: 2500, output: ''});
      ctx.reportResult({builder: target.name, image: {tags: []}});
    });
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
      h.run(async () => {
        throw new Error('build failed');
      })
    ).rejects.toThrow('build failed');
    expect(h.api.teardownCalls.map(c => c.id)).toEqual(['b1']);
    expect(h.events.slice(-2).sort()).toEqual(['docker:rm', 'teardown:b1']);
  });
  test('a builder lost to an infrastructure failure (retries: 1): torn down, replaced within the timeout, built again', async () => {
    const h = harness({...REMOTE, retries: '1'});
    h.api.onAssign('amd', assigned('b1'), assigned('b2'));
    h.api.onDetails('b1', readyDetails('10.0.0.1:1234', {arch: 'amd64'}), httpError('get builder details', 404));
    h.api.onDetails('b2', readyDetails('10.0.0.2:1234', {arch: 'amd64'}));
    const targets: string[] = [];
    const res = await h.run(async (target, ctx) => {
      targets.push(target.nodes.map(n => n.node).join(','));
      if (ctx.attempt === 1) throw new BuildCommandError('buildx failed', STREAM_LOST);
      return 'built';
    });
    expect(res).toBe('built');
    expect(targets).toEqual(['b1', 'b2']);
    expect(h.api.teardownCalls.map(c => c.id)).toEqual(['b1', 'b2']);
    expect(h.io.outputs.get('attempts')).toBe('2');
    expect(loadRun(h.io.state)).toMatchObject({outcome: 'success', attempts: [{n: 1}, {n: 2, outcome: 'success'}]});
  });

  test('buildx gives up on a builder our check finds ready, and buildx 0.21 says its node is inactive: named, not retried', async () => {
    const h = harness({...REMOTE, retries: '1'});
    h.api.onAssign('amd', assigned('b1')).onDetails('b1', readyDetails('10.0.0.1:1234', {arch: 'amd64'}));
    // buildx booted the node during the setup; asked again after the failed build, it says inactive.
    let built = false;
    const handle = h.exec.handler;
    h.exec.handler = c =>
      built && c.args.includes('--bootstrap')
        ? {stdout: 'Name: rb\nDriver: remote\n\nNodes:\nName: b1\nEndpoint: tcp://10.0.0.1:1234\nStatus: inactive\n'}
        : handle(c);
    let builds = 0;
    const e = await h
      .run(async () => {
        builds++;
        built = true;
        throw new BuildCommandError(
          'buildx failed with: ERROR: context deadline exceeded',
          'ERROR: context deadline exceeded\n'
        );
      })
      .catch((err: unknown) => err as Error);
    expect(builds).toBe(1);
    expect(e.message).toMatch(
      /^buildx failed with: ERROR: context deadline exceeded\. buildx cannot use builder "rb" although its BuildKit answered our mutual-TLS check \(b1 at 10\.0\.0\.1:1234\): buildx says node b1 \(tcp:\/\/10\.0\.0\.1:1234\) is inactive\. /
    );
    expect(h.api.teardownCalls.map(c => c.id)).toEqual(['b1']);
  });

  test('a cancelled build: the builders are torn down first, the error says so, the record says cancelled', async () => {
    const h = harness();
    h.api.onAssign('amd', assigned('b1')).onDetails('b1', readyDetails('10.0.0.1:1234', {arch: 'amd64'}));
    const controller = new AbortController();
    h.deps.signal = controller.signal;
    const err = await h
      .run(async () => {
        controller.abort(new Error('Cancelled by SIGTERM'));
        throw new Error('buildx was killed');
      })
      .catch((e: unknown) => e as Error);
    expect(err).toBeInstanceOf(CancelledError);
    expect(err.message).toBe('Cancelled by SIGTERM during the build; torn down: b1');
    expect(h.api.teardownCalls.map(c => c.id)).toEqual(['b1']);
    expect(loadRun(h.io.state)).toMatchObject({outcome: 'cancelled', phase: 'build'});
    expect(h.io.outputs.get('attempts')).toBe('1');
  });
});

describe('a build step on a shared builder', () => {
  test('nothing is assigned; the builder is inspected; a profile-name next to it is warned about (the migration trap)', async () => {
    const h = harness({builder: 'shared', 'profile-name': 'p'});
    let seen: BuildTarget | undefined;
    await h.run(async target => {
      seen = target;
    });
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
    const h = harness({builder: 'shared'});
    await h.run(
      async (target, ctx) => {
        ctx.reportRun({buildMs: 3100, output: ''});
        ctx.reportResult({builder: target.name, targets: [{name: 't', platforms: []}]});
      },
      undefined,
      'bake'
    );
    expect(loadRun(h.io.state)).toMatchObject({
      action: 'bake',
      outcome: 'success',
      summary: true,
      builders: [],
      result: {builder: 'shared', targets: [{name: 't', platforms: []}]},
      timing: {buildMs: 3100, setupMs: expect.any(Number)}
    });

    const failed = harness({builder: 'shared'});
    const err = await failed
      .run(async () => {
        throw new Error('build failed');
      })
      .catch((e: unknown) => e as Error);
    expect((err as Error).message).toBe('build failed');
    expect(loadRun(failed.io.state)).toMatchObject({outcome: 'failure', phase: 'build', errorTail: ['build failed']});
  });

  test('no warning when only "builder" is set', async () => {
    const h = harness({builder: 'shared'});
    await h.run(async () => undefined);
    expect(h.io.logger.messages('warning')).toEqual([]);
  });

  test('an unknown builder: the error names the input and the fix', async () => {
    const h = harness({builder: 'nope'});
    h.exec.handler = c =>
      subcommand(c.args) === 'version' ? {stdout: VERSION} : {exitCode: 1, stderr: 'ERROR: no builder "nope" found\n'};
    await expect(h.run(async () => undefined)).rejects.toThrow(
      /^Input "builder": .*no builder "nope" found\. Create the builder in an earlier step .* or leave "builder" empty to assign one from "profile-name"$/
    );
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
