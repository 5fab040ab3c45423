import {expect, test} from '@jest/globals';
import {killsWithoutPid} from '../../core/__tests__/fakes/kills-without-pid.js';
import {nodeChildRunner} from '../src/child-runner.js';

const sink = {write: (): boolean => true};

test('a command that did not start is never signalled (Ctrl-C before its spawn error arrives)', async () => {
  const killed = killsWithoutPid();
  try {
    const child = nodeChildRunner.start('rb-no-such-command-xyz', [], {
      env: process.env,
      cwd: process.cwd(),
      stdout: sink,
      stderr: sink,
      inherit: false
    });
    child.kill('SIGINT');
    const exit = await child.exited;
    expect(exit.error?.message).toMatch(/ENOENT/);
  } finally {
    killed.restore();
  }
  expect(killed.signals).toEqual([]);
});

test('a command that runs gets the signal', async () => {
  const child = nodeChildRunner.start(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], {
    env: process.env,
    cwd: process.cwd(),
    stdout: sink,
    stderr: sink,
    inherit: false
  });
  child.kill('SIGTERM');
  expect(await child.exited).toEqual({code: null, signal: 'SIGTERM'});
});
