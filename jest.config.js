/** One jest config for every package; ESM mode (run with --experimental-vm-modules). */
export default {
  testEnvironment: 'node',
  roots: ['<rootDir>/packages'],
  testMatch: ['**/__tests__/**/*.test.ts'],
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: {
    '^@remote-builder-actions/core/actions$': '<rootDir>/packages/core/src/adapters/actions.ts',
    '^@remote-builder-actions/([a-z-]+)$': '<rootDir>/packages/$1/src/index.ts',
    '^(\\.{1,2}/.*)\\.js$': '$1'
  },
  transform: {
    '^.+\\.ts$': [
      'ts-jest',
      {useESM: true, tsconfig: '<rootDir>/tsconfig.json', diagnostics: {ignoreCodes: ['TS151001']}}
    ]
  },
  transformIgnorePatterns: ['/node_modules/(?!(@actions)/)'],
  testTimeout: 30000,
  collectCoverageFrom: ['packages/*/src/**/*.ts']
};
