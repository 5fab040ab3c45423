// Issue 15 §8: every phase of provisioning logs in its own group, in order, never nested; a failure names its cause.
import {afterEach, beforeEach, describe, expect, test} from '@jest/globals';
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {LOCAL_CHECKS_GROUP} from '../../src/provisioning/local-checks.js';
import type {BuildTarget} from '../../src/provisioning/build-target.js';
import {assigned, readyDetails} from '../fakes/fake-builder-api.js';
import {buildStepHarness, REMOTE} from './build-step-harness.js';
import {PhaseLogger} from './phase-logger.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'phase-groups-test-'));
});
afterEach(async () => {
  await rm(root, {recursive: true, force: true});
});

function harness() {
  const logger = new PhaseLogger();
  const h = buildStepHarness({root, inputs: REMOTE, logger});
  const checks = async () => logger.info('bake definition resolved');
  const build = (target: BuildTarget) =>
    logger.group(`Building on builder "${target.name}"`, async () => {
      logger.info('[command]docker buildx build .');
      return 'built';
    });
  return {logger, api: h.api, run: h.run, checks, build};
}

describe('provisioning log groups', () => {
  test('local checks, assigning, waiting, certificates + buildx, build, teardown: each in its own group, in order', async () => {
    const h = harness();
    h.api.onAssign('amd', assigned('b1')).onDetails('b1', readyDetails('10.0.0.1:1234', {arch: 'amd64'}));
    expect(await h.run(h.build, h.checks)).toBe('built');

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
    const err = await h
      .run(h.build, async () => {
        throw new Error('Failed to resolve the bake definition: no such file docker-bake.hcl');
      })
      .catch((e: unknown) => e as Error);
    expect((err as Error).message).toBe('Failed to resolve the bake definition: no such file docker-bake.hcl');
    expect(h.logger.groups).toEqual([LOCAL_CHECKS_GROUP]);
    expect(h.api.assignCalls).toEqual([]);
  });

  test('a failed build: the teardown still gets its own group after the build group', async () => {
    const h = harness();
    h.api.onAssign('amd', assigned('b1')).onDetails('b1', readyDetails('10.0.0.1:1234', {arch: 'amd64'}));
    await expect(
      h.run(target =>
        h.logger.group(`Building on builder "${target.name}"`, async () => {
          throw new Error('buildx failed with: ERROR: failed to solve');
        })
      )
    ).rejects.toThrow('buildx failed with: ERROR: failed to solve');
    expect(h.logger.groups.slice(-2)).toEqual(['Building on builder "rb"', 'Tearing down the builders']);
    expect(h.logger.groupOf('Tore down b1 after the failure')).toBe('Tearing down the builders');
    expect(h.logger.nested).toEqual([]);
  });
});
