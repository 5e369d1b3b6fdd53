/** Jest runs TypeScript through ts-jest; type errors are caught by `npm run typecheck`, so ts-jest only transpiles. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
  testTimeout: 30000,
  maxWorkers: 2,
};
