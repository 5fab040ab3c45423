import {afterEach, beforeEach, expect, test} from '@jest/globals';
import {chmodSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {Buildx} from '../../src/buildx/buildx.js';
import {
  resetEarlyBuildxVersion,
  startEarlyBuildxVersion,
  takeEarlyBuildxVersion
} from '../../src/buildx/early-version.js';
import {FakeExec} from '../fakes/fake-exec.js';
import {RecordingLogger} from '../fakes/recording-logger.js';

let dir: string;
/** A machine whose docker is a script (so no plugin is looked up): `docker buildx version` runs it. */
let env: Record<string, string>;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'early-version-'));
  env = {PATH: `${dir}:/usr/bin:/bin`, HOME: dir, DOCKER_CONFIG: join(dir, 'docker-config')};
});
afterEach(() => {
  resetEarlyBuildxVersion();
  rmSync(dir, {recursive: true, force: true});
});

function fakeDocker(script: string): void {
  writeFileSync(join(dir, 'docker'), `#!/bin/sh\n${script}\n`);
  chmodSync(join(dir, 'docker'), 0o755);
}

test('started before the step: the Buildx that would run the same command takes it, once; no other does', async () => {
  fakeDocker('echo "github.com/docker/buildx v0.99.1 early $*"');
  startEarlyBuildxVersion(env);
  // Another command, or a Buildx with its own environment (an installed buildx), does not take it.
  expect(takeEarlyBuildxVersion('docker', ['buildx', 'ls'])).toBeUndefined();
  const installed = new FakeExec(() => ({stdout: 'github.com/docker/buildx v0.20.0 x\n'}));
  expect(
    await new Buildx({exec: installed, env: {DOCKER_CONFIG: '/x'}, findPlugin: true}).version({plugin: false})
  ).toBe('0.20.0');
  expect(installed.calls).toHaveLength(1);

  const logger = new RecordingLogger();
  const exec = new FakeExec(() => ({stdout: 'github.com/docker/buildx v0.10.0 late\n'}));
  expect(await new Buildx({exec, logger, findPlugin: true}).version({plugin: false})).toBe('0.99.1');
  expect(exec.calls).toEqual([]);
  expect(logger.messages('debug')).toEqual([
    'Buildx.version: `docker buildx version` was started while the step loaded'
  ]);
  // Taken once: the next version() runs its own.
  expect(await new Buildx({exec, findPlugin: true}).version({plugin: false})).toBe('0.10.0');
});

test("cancelling the step stops the early run as it would stop its own, and the version fails with the step's reason", async () => {
  fakeDocker('exec sleep 30');
  startEarlyBuildxVersion(env);
  const step = new AbortController();
  const version = new Buildx({exec: new FakeExec(), findPlugin: true}).version({plugin: false, signal: step.signal});
  step.abort();
  await expect(version).rejects.toThrow('`docker buildx version` was stopped: the step was cancelled');
});
