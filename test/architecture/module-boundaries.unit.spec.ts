import { createProjectGraphAsync, ProjectGraph } from '@nx/devkit';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * The architecture rules are only worth something if lint really enforces them: these lint
 * deliberate violations, as if written in the named project, and expect the rule to fire.
 */
const root = join(__dirname, '..', '..');
let graph: ProjectGraph;

beforeAll(async () => {
  // The boundaries rule reads the cached project graph (and silently skips without one).
  graph = await createProjectGraphAsync({ exitOnError: false });
}, 60_000);

/** Lints `code` as the CLI would, as if it were the file `file`; returns the boundary errors. */
async function boundaryErrors(code: string, file: string): Promise<string[]> {
  // The CLI, not the ESLint class: the config is an ES module, which Jest's VM cannot import.
  const run = spawnSync(
    process.execPath,
    [
      join(root, 'node_modules', 'eslint', 'bin', 'eslint.js'),
      '--stdin',
      '--stdin-filename',
      join(root, file),
      '--format',
      'json',
    ],
    { cwd: root, input: code, encoding: 'utf8' },
  );
  const [result] = JSON.parse(run.stdout) as { messages: { ruleId: string; message: string }[] }[];
  return result.messages
    .filter((m) => m.ruleId === '@nx/enforce-module-boundaries')
    .map((m) => m.message);
}

describe('module boundaries', () => {
  it('lets an app use infra and contracts libs', async () => {
    const code = `import { NatsRpcClient } from '@rollout/platform/nats';\nimport { SYSTEM_V1 } from '@rollout/contracts';\nexport const x = [NatsRpcClient, SYSTEM_V1];\n`;
    expect(await boundaryErrors(code, 'apps/gateway/src/fixture.ts')).toEqual([]);
  });

  it('keeps NestJS out of the contracts', async () => {
    const code = `import { Injectable } from '@nestjs/common';\nexport const x = Injectable;\n`;
    const errors = await boundaryErrors(code, 'libs/contracts/src/fixture.ts');
    expect(errors.join('\n')).toMatch(/@nestjs\/common/);
  });

  it('keeps contracts from depending on infrastructure libs', async () => {
    const code = `import { loadConfig } from '@rollout/platform/config';\nexport const x = loadConfig;\n`;
    const errors = await boundaryErrors(code, 'libs/contracts/src/fixture.ts');
    expect(errors.join('\n')).toMatch(/type:contracts/);
  });

  it('forbids one service from reaching into another', async () => {
    const code = `import { AppModule } from '../../evaluator/src/app.module';\nexport const x = AppModule;\n`;
    expect(await boundaryErrors(code, 'apps/experiment-service/src/fixture.ts')).not.toEqual([]);
  });

  describe('test kits (type:testing) stay in test code, so none ships', () => {
    const kitImport = `import { uniqueName } from '@rollout/testing/kit';\nimport { describeAdapterConformance } from '@rollout/testing/adapter-conformance';\nexport const x = [uniqueName, describeAdapterConformance];\n`;

    it.each([
      'apps/gateway/src/fixture.ts',
      'libs/platform/nats/src/fixture.ts',
      'libs/domain/inspection/src/fixture.ts',
      'tools/launcher/src/fixture.ts',
    ])('forbids them in the shipped code %s', async (file) => {
      const errors = await boundaryErrors(kitImport, file);
      expect(errors).toHaveLength(2);
    });

    it.each([
      'apps/gateway/src/fixture.int.spec.ts',
      'apps/gateway/test/fixture.ts',
      'libs/platform/nats/src/fixture.int.spec.ts',
      'libs/domain/inspection/test/fixture.ts',
      'tools/launcher/src/fixture.int.spec.ts',
      'test/e2e/fixture.ts',
    ])('allows them in the test code %s', async (file) => {
      expect(await boundaryErrors(kitImport, file)).toEqual([]);
    });
  });

  it('keeps the graph apps → libs only', () => {
    const type = (name: string) => graph.nodes[name]?.type;
    const projectEdges = Object.entries(graph.dependencies).flatMap(([source, deps]) =>
      deps.filter((d) => graph.nodes[d.target]).map((d) => [source, d.target] as const),
    );
    expect(projectEdges.length).toBeGreaterThan(0);
    expect(projectEdges.filter(([, target]) => type(target) === 'app')).toEqual([]);
  });
});
