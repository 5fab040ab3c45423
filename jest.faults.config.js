/**
 * The fault suites (packages/<pkg>/__faults__/**): the bundled actions through the runner harness against the
 * emulator's fault injection. Same ESM setup (esbuild transform) as jest.config.js. Run `npm run bundle` first, or point
 * REMOTE_BUILDER_FAULTS_DIST at another dist/ (packages/emulator/__faults__/kit/actions.ts).
 * `faults` is also one of the two projects of `npm run test:all` (jest.all.config.js).
 */
import base from './jest.config.js';

/** Scenarios at once within a file: each mostly waits on child processes and timers. */
export const FAULTS_MAX_CONCURRENCY = 8;

export const faults = {
  ...base,
  testMatch: ['**/__faults__/**/*.faults.test.ts'],
  // 90 s per test. Set by a setup file, not testTimeout: in a run with projects jest reads testTimeout only from
  // the top level, which the unit tests share.
  setupFilesAfterEnv: ['<rootDir>/packages/emulator/__faults__/test-timeout.mjs'],
  globalSetup: '<rootDir>/packages/emulator/__faults__/global-setup.mjs',
  globalTeardown: '<rootDir>/packages/emulator/__faults__/global-teardown.mjs'
};

export default {...faults, maxConcurrency: FAULTS_MAX_CONCURRENCY};
