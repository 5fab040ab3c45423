import {jest} from '@jest/globals';
import {ChildProcess} from 'node:child_process';

/**
 * Records ChildProcess#kill calls on a child without a pid (its spawn failed) and never forwards them: Node
 * 20 would signal an uninitialized pid, which can be 0 (the test runner's own process group) or -1.
 */
export function killsWithoutPid(): {signals: string[]; restore: () => void} {
  const signals: string[] = [];
  const real = ChildProcess.prototype.kill;
  const spy = jest.spyOn(ChildProcess.prototype, 'kill').mockImplementation(function (
    this: ChildProcess,
    signal?: NodeJS.Signals | number
  ) {
    if (this.pid === undefined) {
      signals.push(String(signal));
      return false;
    }
    return real.call(this, signal);
  });
  return {signals, restore: () => spy.mockRestore()};
}
