/**
 * The fault suites (packages/<pkg>/__faults__/**): the bundled actions through the runner harness against the
 * emulator's fault injection. Same ESM/ts-jest setup as jest.config.js. Run `npm run bundle` first.
 */
import base from './jest.config.js';

export default {
  ...base,
  testMatch: ['**/__faults__/**/*.faults.test.ts'],
  // Each scenario mostly waits on child processes and timers: run many at once within a file.
  maxConcurrency: 8,
  testTimeout: 90000,
  globalSetup: '<rootDir>/packages/emulator/__faults__/global-setup.mjs',
  globalTeardown: '<rootDir>/packages/emulator/__faults__/global-teardown.mjs'
};
