/**
 * `npm run test:all` (scripts/test-all.mjs): the unit and integration tests (jest.config.js) and the fault suites
 * (jest.faults.config.js) as two projects of one jest run, on two workers, so the fault suites' waiting on child
 * processes overlaps the unit tests' CPU work instead of following it.
 */
import unit from './jest.config.js';
import {faults, FAULTS_MAX_CONCURRENCY} from './jest.faults.config.js';

export default {
  projects: [
    {...unit, displayName: 'unit'},
    {...faults, displayName: 'faults'}
  ],
  maxWorkers: 2,
  // Global in jest: only the fault suites run tests concurrently (test.concurrent).
  maxConcurrency: FAULTS_MAX_CONCURRENCY,
  // Global in jest: the unit tests' limit; the fault suites set their own (packages/emulator/__faults__/test-timeout.mjs).
  testTimeout: unit.testTimeout,
  testSequencer: '<rootDir>/jest.sequencer.js'
};
