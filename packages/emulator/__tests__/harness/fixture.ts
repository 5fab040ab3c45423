import {readFileSync} from 'node:fs';
import {fileURLToPath} from 'node:url';

/** Absolute path of a fixture script under fixtures/. */
export function fixture(name: string): string {
  return fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
}

/** Whether a process is still running (a zombie awaiting its reaper counts as gone). */
export function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}
