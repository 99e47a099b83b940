import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DiagnosticSeverity, Parser } from '@asyncapi/parser';
import { ASYNCAPI_FILE } from './paths';

export interface AsyncApiValidation {
  errors: number;
  /** Errors and warnings, one line each; infos and hints (such as "3.x is newer") are advice. */
  lines: string[];
}

/**
 * The committed AsyncAPI document through the validation `asyncapi validate` runs
 * (@asyncapi/parser: the schema plus its Spectral ruleset). The CLI itself pulls in ~400 MB
 * (generators, modelina, a bundled yarn) for the same check.
 */
export async function validateAsyncApi(root: string): Promise<AsyncApiValidation> {
  const { diagnostics } = await new Parser().parse(readFileSync(join(root, ASYNCAPI_FILE), 'utf8'));
  const problems = diagnostics.filter((d) => d.severity <= DiagnosticSeverity.Warning);
  return {
    errors: problems.filter((d) => d.severity === DiagnosticSeverity.Error).length,
    lines: problems.map(
      (d) =>
        `${d.severity === DiagnosticSeverity.Error ? 'error' : 'warning'} ${d.code}: ${d.message} at ${d.path.join('.') || '(document)'}`,
    ),
  };
}
