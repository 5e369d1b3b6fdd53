/**
 * The client suite (`npm run test:clients`): real CLIs and libraries against a real stack started
 * once by the global setup. One file at a time; inside a file, at most three cells run at once.
 */
const path = require('node:path');

module.exports = {
  rootDir: __dirname,
  testEnvironment: 'node',
  testMatch: ['<rootDir>/*.test.ts'],
  transform: {
    '^.+\\.ts$': [
      require.resolve('ts-jest', { paths: [path.resolve(__dirname, '../..')] }),
      {
        diagnostics: false,
        tsconfig: {
          module: 'commonjs',
          moduleResolution: 'node10',
          ignoreDeprecations: '6.0',
          isolatedModules: true,
          esModuleInterop: true,
        },
      },
    ],
  },
  globalSetup: '<rootDir>/support/global-setup.ts',
  globalTeardown: '<rootDir>/support/global-teardown.ts',
  verbose: true,
  maxWorkers: 1,
  maxConcurrency: 3,
  testTimeout: 180000,
};
