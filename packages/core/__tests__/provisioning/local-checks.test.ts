import {afterEach, beforeEach, describe, expect, test} from '@jest/globals';
import {chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {malformedPlatform} from '../../src/docker/platform-guard.js';
import {InputError} from '../../src/errors.js';
import {checkPlatformNames, CommandNotFoundError, requireCommand} from '../../src/provisioning/local-checks.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'local-checks-test-'));
});
afterEach(() => {
  rmSync(dir, {recursive: true, force: true});
});

describe('malformedPlatform / checkPlatformNames', () => {
  test.each([
    ['linux/amd64'],
    ['linux/arm64/v8'],
    ['linux/386'],
    ['linux/x86_64'],
    ['arm64'],
    ['linux'],
    ['local'],
    ['linux/riscv64']
  ])('%s is a platform', p => {
    expect(malformedPlatform([p])).toBeUndefined();
  });

  test.each([['linux/amd64x'], ['linux/arm64/v8/x'], ['linux amd64'], ['amd64x'], ['linux/']])(
    '%s is not a platform',
    p => {
      expect(malformedPlatform(['linux/amd64', p])).toBe(p);
    }
  );

  test('the error names the input, the value and the form', () => {
    expect(() => checkPlatformNames(['linux/amd64x'], '--platforms')).toThrow(InputError);
    expect(() => checkPlatformNames(['linux/amd64x'], '--platforms')).toThrow(
      'Input "--platforms": "linux/amd64x" is not a platform: use os/arch[/variant], e.g. linux/amd64 or linux/arm64'
    );
  });
});

describe('requireCommand', () => {
  function executable(path: string, mode = 0o755): void {
    writeFileSync(path, '#!/bin/sh\nexit 0\n');
    chmodSync(path, mode);
  }

  test('found on PATH: the first executable file of that name', () => {
    mkdirSync(join(dir, 'a'));
    mkdirSync(join(dir, 'b'));
    executable(join(dir, 'a', 'tool'), 0o644); // not executable: skipped
    executable(join(dir, 'b', 'tool'));
    expect(requireCommand('tool', {env: {PATH: `${join(dir, 'a')}:${join(dir, 'b')}`}, cwd: dir})).toBe(
      join(dir, 'b', 'tool')
    );
  });

  test('not on PATH: a CommandNotFoundError naming the command and the fix', () => {
    let err: unknown;
    try {
      requireCommand('no-such-tool', {env: {PATH: dir}, cwd: dir});
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CommandNotFoundError);
    expect((err as CommandNotFoundError).command).toBe('no-such-tool');
    expect((err as Error).message).toBe(
      'Cannot run "no-such-tool": it is not found on PATH; install it or give its full path. Nothing was assigned'
    );
  });

  test('a path is resolved against cwd and must be an executable file', () => {
    executable(join(dir, 'run.sh'));
    expect(requireCommand('./run.sh', {env: {}, cwd: dir})).toBe(join(dir, 'run.sh'));
    expect(() => requireCommand('./sub', {env: {}, cwd: dir})).toThrow(
      `Cannot run "./sub": no executable file at ${join(dir, 'sub')}`
    );
    mkdirSync(join(dir, 'sub'));
    // A directory is not a command.
    expect(() => requireCommand('./sub', {env: {}, cwd: dir})).toThrow(CommandNotFoundError);
  });
});
