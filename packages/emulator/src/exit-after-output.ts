/**
 * Exits once everything printed has reached stdout and stderr: process.exit() drops what a pipe has not taken
 * yet (a loaded machine cut the demo's output mid-summary), and an empty write's callback runs after the ones
 * before it. Used by each of the emulator package's command-line entry points.
 */
export function exitAfterOutput(code: number): void {
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
}
