// @ts-check
const { readFileSync } = require('node:fs');

// One test runner; the test level is in the file name (see docs/architecture.md, "Tests").
const swcrc = JSON.parse(readFileSync(`${__dirname}/.swcrc`, 'utf8'));
const { compilerOptions } = JSON.parse(readFileSync(`${__dirname}/tsconfig.base.json`, 'utf8'));
/** @type {Record<string, string[]>} */
const paths = compilerOptions.paths;
const moduleNameMapper = Object.fromEntries(
  Object.entries(paths).map(([alias, [target]]) => [`^${alias}$`, `<rootDir>/${target}`]),
);

/** @returns {import('jest').Config} */
const level = (/** @type {string} */ displayName, extra = {}) => ({
  displayName,
  rootDir: __dirname,
  testEnvironment: 'node',
  testMatch: [`<rootDir>/{apps,libs,tools,test}/**/*.${displayName}.spec.ts`],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { ...swcrc, swcrc: false }],
  },
  moduleNameMapper,
  // The build output mirrors the sources (and has its own package.json); tests use sources.
  modulePathIgnorePatterns: ['<rootDir>/dist'],
  ...extra,
});

/** @type {import('jest').Config} */
module.exports = {
  projects: [
    level('unit'),
    level('int'),
    // The e2e suite runs the built system (`npm run build` first), started once per file.
    level('e2e'),
  ],
  // Integration and e2e tests wait on real servers; a hung test still fails, never passes.
  testTimeout: 30_000,
};
