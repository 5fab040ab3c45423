/**
 * The order of `npm run test:all` (jest.all.config.js), which is the order the two workers start files in:
 * jest's own (files that failed last time first, then the longest by the last run's timing, the longest-first
 * order that ends both workers together), except for the files jest has no timing for (a clean clone, as in
 * CI; a changed config). Those it would order by size, putting the fault suites, each a file of bundled steps
 * run 8 at a time for up to two minutes, side by side on both workers: 16 jobs' processes on two cores, which
 * starves their timers. So the untimed files go fault suite, unit file, fault suite, ... (each kind largest
 * first): the fault matrix and the largest unit file start together, and a worker that ends a fault suite
 * takes a unit file next when the other one is in a fault suite. Timed files follow, in jest's order.
 */
import Sequencer from '@jest/test-sequencer';

const isFault = t => t.path.includes('/__faults__/');

export default class FaultSuitesBesideUnitFiles extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    const untimed = sorted.filter(t => t.duration == null);
    const faults = untimed.filter(isFault);
    const units = untimed.filter(t => !isFault(t));
    const interleaved = [];
    for (let i = 0; i < Math.max(faults.length, units.length); i++) {
      if (i < faults.length) interleaved.push(faults[i]);
      if (i < units.length) interleaved.push(units[i]);
    }
    return [...interleaved, ...sorted.filter(t => t.duration != null)];
  }
}
