import {readFileSync} from 'node:fs';

// The workspaces resolve to their TypeScript sources, as for tsc, tsx and ncc: one list, tsconfig.json's paths.
const {paths} = JSON.parse(readFileSync(new URL('./tsconfig.json', import.meta.url), 'utf8')).compilerOptions;
const workspaces = Object.fromEntries(
  Object.entries(paths).map(([name, [file]]) => [
    `^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`,
    `<rootDir>/${file.replace(/^\.\//, '')}`
  ])
);

/** One jest config for every package; ESM mode (run with --experimental-vm-modules). */
export default {
  testEnvironment: 'node',
  roots: ['<rootDir>/packages'],
  testMatch: ['**/__tests__/**/*.test.ts'],
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: {
    ...workspaces,
    '^@remote-builder-actions/([a-z-]+)$': '<rootDir>/packages/$1/src/index.ts',
    '^(\\.{1,2}/.*)\\.js$': '$1'
  },
  transform: {'^.+\\.ts$': '<rootDir>/scripts/jest-transform.mjs'},
  transformIgnorePatterns: ['/node_modules/(?!(@actions)/)'],
  testTimeout: 30000,
  collectCoverageFrom: ['packages/*/src/**/*.ts']
};
