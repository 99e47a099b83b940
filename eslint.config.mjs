// @ts-check
import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

/**
 * Architecture rules (docs/architecture.md, "Libraries and boundaries"), enforced on two tag axes:
 * - type:  app → infra, domain, contracts; infra → infra, contracts; domain → domain, contracts;
 *          contracts → contracts only, and no framework or I/O packages; tool → tool, infra,
 *          contracts;
 *          test (system tests) → tool, infra, domain (benchmarks time its pure stages alone),
 *          contracts, testing; testing (the test kits
 *          libs/testing/*) → infra, contracts. Only test code (specs,
 *          apps/<app>/test/, libs/<role>/<lib>/test/, test/) may import type:testing, so no kit
 *          ships, and type:tool, so that a test provisions the bus as a deployment does.
 * - scope: a service's projects use only their own scope and `shared`; the system tests
 *   (`scope:system`) any.
 * - stability: a stable contract never depends on an alpha one.
 * - web (the console, bundled for the browser): contracts only, and from them only types.
 */
const FRAMEWORK_PACKAGES = [
  '@nestjs/*',
  'typeorm',
  'pg',
  'nats',
  'fastify',
  '@fastify/*',
  'express',
  'nestjs-pino',
  'pino*',
  'prom-client',
];

const depConstraints = [
  {
    sourceTag: 'type:app',
    onlyDependOnLibsWithTags: ['type:infra', 'type:domain', 'type:contracts'],
  },
  {
    sourceTag: 'type:tool',
    onlyDependOnLibsWithTags: ['type:tool', 'type:infra', 'type:contracts'],
  },
  {
    sourceTag: 'type:web',
    onlyDependOnLibsWithTags: ['type:contracts'],
    bannedExternalImports: [...FRAMEWORK_PACKAGES, 'node:*'],
  },
  {
    sourceTag: 'type:test',
    onlyDependOnLibsWithTags: [
      'type:tool',
      'type:infra',
      'type:domain',
      'type:contracts',
      'type:testing',
    ],
  },
  { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:infra', 'type:contracts'] },
  { sourceTag: 'type:infra', onlyDependOnLibsWithTags: ['type:infra', 'type:contracts'] },
  {
    sourceTag: 'type:domain',
    onlyDependOnLibsWithTags: ['type:domain', 'type:contracts'],
    bannedExternalImports: FRAMEWORK_PACKAGES,
  },
  {
    sourceTag: 'type:contracts',
    onlyDependOnLibsWithTags: ['type:contracts'],
    bannedExternalImports: FRAMEWORK_PACKAGES,
  },
  { sourceTag: 'stability:stable', notDependOnLibsWithTags: ['stability:alpha'] },
  { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
  // The system tests (test/) look at the whole system: every scope.
  { sourceTag: 'scope:system', onlyDependOnLibsWithTags: ['scope:*'] },
  ...['gateway', 'experiment', 'evaluator', 'enforcement', 'inspection', 'console'].map(
    (scope) => ({
      sourceTag: `scope:${scope}`,
      onlyDependOnLibsWithTags: [`scope:${scope}`, 'scope:shared'],
    }),
  ),
];

/**
 * Test code of any project may also use the test kits (type:testing) and, but in the browser's
 * code, the tools (a test provisions the bus as a deployment does); the code it ships may not.
 */
const testCodeDepConstraints = depConstraints.map((constraint) =>
  constraint.sourceTag.startsWith('type:') && constraint.onlyDependOnLibsWithTags
    ? {
        ...constraint,
        onlyDependOnLibsWithTags: [
          ...new Set([
            ...constraint.onlyDependOnLibsWithTags,
            'type:testing',
            ...(constraint.sourceTag === 'type:web' ? [] : ['type:tool']),
          ]),
        ],
      }
    : constraint,
);

/** Where test code lives: specs beside their code, and each project's kits in its test/ folder. */
const TEST_CODE = ['**/*.spec.ts', 'apps/*/test/**/*.ts', 'libs/*/*/test/**/*.ts'];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'tmp/**', 'coverage/**', '.nx/**'] },
  ...nx.configs['flat/base'],
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        { enforceBuildableLibDependency: false, allow: [], depConstraints },
      ],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      'no-console': 'error',
    },
  },
  {
    files: TEST_CODE,
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        { enforceBuildableLibDependency: false, allow: [], depConstraints: testCodeDepConstraints },
      ],
    },
  },
  {
    // The console ships to browsers: of the contracts' runtime code only the resource-name
    // formatters and the match fields' words, so that each has one home (the bundle keeps them
    // alone, vite.config.mjs).
    files: ['apps/console/src/**/*.ts', 'apps/console/src/**/*.tsx'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@rollout/contracts',
              allowTypeImports: true,
              allowImportNames: [
                'formatParent',
                'formatPolicies',
                'formatPolicyName',
                'formatExperimentName',
                'matchWords',
                'regionMatchWords',
              ],
              message:
                'The console imports types from the contracts, and at runtime only the name formatters and the match words.',
            },
          ],
        },
      ],
    },
  },
  {
    // Scripts and the launcher talk to a terminal; tests may print diagnostics.
    files: ['tools/**/main.ts', 'test/bench/**/*.ts'],
    rules: { 'no-console': 'off' },
  },
  {
    files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
