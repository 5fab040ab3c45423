// Issue 15 §8: every phase of provisioning logs in its own group, in order, never nested; a failure names its cause.
import {afterEach, beforeEach, describe, expect, test} from '@jest/globals';
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {Buildx} from '../../src/buildx/buildx.js';
import {LOCAL_CHECKS_GROUP} from '../../src/provisioning/provisioner.js';
import {runRemoteBuild, type RemoteBuildOpts} from '../../src/provisioning/remote-build.js';
import {FakeActionIO} from '../fakes/fake-action-io.js';
import {assigned, FakeBuilderApi, readyDetails} from '../fakes/fake-builder-api.js';
import {FakeClock} from '../fakes/fake-clock.js';
import {FakeExec, subcommand} from '../fakes/fake-exec.js';
import {FakeProbe} from '../fakes/fake-probe.js';
import {PhaseLogger} from './phase-logger.js';

const VERSION = 'github.com/docker/buildx v0.13.1 abc\n';
const INSPECT = 'Name: rb\nDriver: remote\n\nName: b1\nBuildKit version: v0.13.2\nPlatforms: linux/amd64*\n';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'phase-groups-test-'));
});
afterEach(async () => {
  await rm(root, {recursive: true, force: true});
});

function harness() {
  const logger = new PhaseLogger();
  const io = Object.assign(new FakeActionIO({}, {RUNNER_TEMP: root}), {logger});
  const api = new FakeBuilderApi();
  const exec = new FakeExec(c => {
    if (subcommand(c.args) === 'version') return {stdout: VERSION};
    return subcommand(c.args) === 'inspect' ? {stdout: INSPECT} : {};
  });
  const opts = (over: Partial<RemoteBuildOpts<string, string>> = {}): RemoteBuildOpts<string, string> => ({
    io,
    buildx: new Buildx({exec, logger}),
    builder: '',
    profiles: ['amd'],
    timeoutMs: 10_000,
    apiUrl: 'https://api.example.com',
    credentials: {token: 'k', source: 'input'},
    inputNames: {builder: 'builder', profileName: 'profile-name', timeout: 'timeout'},
    makeApi: () => Object.assign(api, {close: () => undefined}),
    clock: new FakeClock(),
    probe: new FakeProbe().probe,
    schedule: {intervalMs: 100, probeIntervalMs: 50, maxBackoffMs: 400},
    builderName: 'rb',
    prepare: async () => {
      logger.info('bake definition resolved');
      return 'prepared';
    },
    build: (_p, target) =>
      logger.group(`Building on builder "${target.name}"`, async () => {
        logger.info('[command]docker buildx build .');
        return 'built';
      }),
    ...over
  });
  return {logger, api, opts};
}

describe('provisioning log groups', () => {
  test('local checks, assigning, waiting, certificates + buildx, build, teardown: each in its own group, in order', async () => {
    const h = harness();
    h.api.onAssign('amd', assigned('b1')).onDetails('b1', readyDetails('10.0.0.1:1234', {arch: 'amd64'}));
    expect(await runRemoteBuild(h.opts())).toBe('built');

    expect(h.logger.groups).toEqual([
      LOCAL_CHECKS_GROUP,
      'Assigning a builder from profile "amd"',
      'Waiting for 1 builder to be ready',
      'Setting up buildx builder "rb" (certificates, remote driver)',
      'Building on builder "rb"',
      'Tearing down the builders'
    ]);
    // Each group closes before the next opens: none nests in another.
    expect(h.logger.nested).toEqual([]);
    const opens = h.logger.events.filter(e => e.kind !== 'line');
    for (let i = 0; i < opens.length; i += 2) {
      expect(opens[i]).toEqual({kind: 'open', title: h.logger.groups[i / 2]});
      expect(opens[i + 1]).toEqual({kind: 'close', title: h.logger.groups[i / 2]});
    }
    // Which lines land where: the buildx version and the action's local work with the local checks (not
    // inside "Waiting…" or "Assigning…"), readiness with the wait, the certificates with buildx.
    expect(h.logger.groupOf('docker buildx 0.13.1')).toBe(LOCAL_CHECKS_GROUP);
    expect(h.logger.groupOf('bake definition resolved')).toBe(LOCAL_CHECKS_GROUP);
    expect(h.logger.groupOf('Assigned 1 builder: b1')).toBe('Assigning a builder from profile "amd"');
    expect(h.logger.groupOf('All builders ready after')).toBe('Waiting for 1 builder to be ready');
    expect(h.logger.groupOf('Wrote the certificates of 1 node')).toBe(
      'Setting up buildx builder "rb" (certificates, remote driver)'
    );
    expect(h.logger.groupOf('[command]docker buildx build')).toBe('Building on builder "rb"');
    expect(h.logger.groupOf('Tore down b1 after the build; billing stopped')).toBe('Tearing down the builders');
  });

  test('a failed local check ends in its group, before any assignment, naming the cause', async () => {
    const h = harness();
    const err = await runRemoteBuild(
      h.opts({
        prepare: async () => {
          throw new Error('Failed to resolve the bake definition: no such file docker-bake.hcl');
        }
      })
    ).catch((e: unknown) => e as Error);
    expect((err as Error).message).toBe('Failed to resolve the bake definition: no such file docker-bake.hcl');
    expect(h.logger.groups).toEqual([LOCAL_CHECKS_GROUP]);
    expect(h.api.assignCalls).toEqual([]);
  });

  test('a failed build: the teardown still gets its own group after the build group', async () => {
    const h = harness();
    h.api.onAssign('amd', assigned('b1')).onDetails('b1', readyDetails('10.0.0.1:1234', {arch: 'amd64'}));
    await expect(
      runRemoteBuild(
        h.opts({
          build: (_p, target) =>
            h.logger.group(`Building on builder "${target.name}"`, async () => {
              throw new Error('buildx failed with: ERROR: failed to solve');
            })
        })
      )
    ).rejects.toThrow('buildx failed with: ERROR: failed to solve');
    expect(h.logger.groups.slice(-2)).toEqual(['Building on builder "rb"', 'Tearing down the builders']);
    expect(h.logger.groupOf('Tore down b1 after the failure')).toBe('Tearing down the builders');
    expect(h.logger.nested).toEqual([]);
  });
});
