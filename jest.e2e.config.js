/**
 * End-to-end tests against a real BuildKit (scripts/e2e-up.sh sets it up): `npm run test:e2e`.
 * Same ESM setup (esbuild transform) as jest.config.js; one test file at a time, with long timeouts.
 */
import base from './jest.config.js';

const {collectCoverageFrom: _coverage, ...shared} = base;

export default {
  ...shared,
  testMatch: ['**/__e2e__/**/*.e2e.test.ts'],
  maxWorkers: 1,
  testTimeout: 10 * 60_000,
  verbose: true,
  // Without the environment: one line on how to set it up and exit 1, before any test file runs.
  globalSetup: '<rootDir>/packages/emulator/__e2e__/global-setup.mjs'
};
