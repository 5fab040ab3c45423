/**
 * The order of `npm run test:all` (jest.all.config.js): jest's own (files that failed last time first, then the
 * longest by the last run's timing, else the largest), except that the fault suites jest has no timing for (a
 * clean clone, a changed config) go first: each runs bundled steps for seconds to minutes, and the longest file
 * (the fault matrix) must start at once for two workers to finish together.
 */
import Sequencer from '@jest/test-sequencer';

export default class FaultSuitesFirst extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    const untimedFaults = sorted.filter(t => t.duration == null && t.path.includes('/__faults__/'));
    return [...untimedFaults, ...sorted.filter(t => !untimedFaults.includes(t))];
  }
}
