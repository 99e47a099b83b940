/**
 * `npm run contracts` (generate), `contracts:check` (CI) and `lint-asyncapi`: see docs/contracts.md.
 * The OpenAPI document goes through `redocly lint` instead (the contracts:lint-docs script).
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { compatibility, generate, staleFiles } from './generate';
import { previousLocks } from './history';
import { formatViolation, type Violation } from './model';
import { ASYNCAPI_FILE, LOCK_FILE, REPO_ROOT, SCHEMAS_DIR } from './paths';
import { validateAsyncApi } from './validate-asyncapi';

function report(violations: Violation[], what: string): boolean {
  if (!violations.length) return true;
  console.error(`contracts: ${violations.length} problem(s) ${what}:`);
  for (const violation of violations) console.error(`  ✖ ${formatViolation(violation)}`);
  return false;
}

async function lintAsyncApi(root: string): Promise<number> {
  const { errors, lines } = await validateAsyncApi(root);
  for (const line of lines) console.error(`  ${line}`);
  console.log(`contracts: ${ASYNCAPI_FILE} ${errors ? `has ${errors} error(s)` : 'is valid'}.`);
  return errors ? 1 : 0;
}

function main(): number | Promise<number> {
  const [command = 'check'] = process.argv.slice(2);
  const root = process.env.CONTRACTS_ROOT ?? REPO_ROOT;
  if (command === 'lint-asyncapi') return lintAsyncApi(root);
  if (command !== 'generate' && command !== 'check') {
    console.error('usage: contracts generate|check|lint-asyncapi');
    return 2;
  }
  const started = Date.now();
  const generation = generate(root);
  if (!report(generation.violations, 'in the contract packages')) {
    if (command === 'generate')
      console.error('contracts: nothing written; fix the packages first.');
    return 1;
  }
  const previous = previousLocks(root, LOCK_FILE);
  const breaking = compatibility(generation.lock, previous);

  if (command === 'generate') {
    const schemas = join(root, SCHEMAS_DIR);
    mkdirSync(schemas, { recursive: true });
    for (const entry of readdirSync(schemas)) {
      if (!generation.files.has(`${SCHEMAS_DIR}/${entry}`)) rmSync(join(schemas, entry));
    }
    for (const [path, content] of generation.files) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), content);
    }
    console.log(
      `contracts: wrote ${generation.files.size} files for ${Object.keys(generation.lock.packages).length} packages.`,
    );
    return report(breaking, `against ${previous.length} previous lock(s)`) ? 0 : 1;
  }

  const ok = [
    report(staleFiles(root, generation.files), 'in the committed generated files'),
    report(breaking, `against ${previous.length} previous lock(s)`),
  ].every(Boolean);
  if (ok) {
    console.log(
      `contracts: ${Object.keys(generation.lock.packages).length} packages, generated files current, ` +
        `compatible with ${previous.length} previous lock(s) (${Date.now() - started} ms).`,
    );
  }
  return ok ? 0 : 1;
}

Promise.resolve()
  .then(main)
  .then(
    (code) => (process.exitCode = code),
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
