/**
 * The console's browser suite (`npm run test:browser`, run by .ci/run): Playwright driving Debian's
 * chromium against a whole gateway. Separate from `npm test` because it needs the console build and
 * a browser; files are `*.browser.ts`, so the main config never picks them up.
 */
const base = require('../../jest.config.js');

module.exports = {
  ...base,
  rootDir: '../..',
  roots: ['<rootDir>/test/browser'],
  testMatch: ['**/*.browser.ts'],
  testTimeout: 120000,
  maxWorkers: 1,
};
