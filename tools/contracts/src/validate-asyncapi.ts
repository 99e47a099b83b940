import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DiagnosticSeverity, Parser } from '@asyncapi/parser';
import { ASYNCAPI_FILE } from './paths';

export interface AsyncApiValidation {
  errors: number;
  /** Infos and hints (such as "3.x is newer") are advice and left out. */
  lines: string[];
}

/** What `asyncapi validate` runs (@asyncapi/parser), without the CLI's ~400 MB. */
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
