/** Jest runs TypeScript through ts-jest; type errors are caught by `npm run typecheck`, so ts-jest only transpiles. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // The client suite has its own config and install (npm run test:clients).
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/clients/'],
  modulePathIgnorePatterns: ['<rootDir>/test/clients/node_modules/'],
  transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false, tsconfig: { module: 'commonjs', moduleResolution: 'node10', ignoreDeprecations: '6.0', isolatedModules: true, esModuleInterop: true } }] },
  testTimeout: 30000,
  maxWorkers: 2,
};
