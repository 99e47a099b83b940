import { StatusError } from '@rollout/contracts';
import { RuleDefinition, validateRule } from '@rollout/domain/inspection';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

/** Built-ins sort before user rules of the same priority: they are older than any of them. */
const BUILT_IN_CREATED_AT = '1970-01-01T00:00:00.000Z';

/** Ironic's uuid for the n-th built-in rule without one (`00000000-0000-0000-0000-00000000000n`). */
function builtInUuid(index: number): string {
  return `00000000-0000-0000-0000-${index.toString(16).padStart(12, '0')}`;
}

/** Parses YAML rules (built-ins and imports) with the safe core schema and a small alias budget. */
export function parseRulesYaml(text: string): unknown {
  try {
    return parse(text, { maxAliasCount: 100, prettyErrors: false });
  } catch (error) {
    throw StatusError.invalidArgument(
      `Invalid YAML: ${error instanceof Error ? error.message.split('\n')[0] : 'unreadable'}`,
    );
  }
}

export function loadBuiltInRules(path: string): RuleDefinition[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`INSPECTION_BUILT_IN_RULES: cannot read ${path}: ${(error as Error).message}`);
  }
  let rules: unknown;
  try {
    rules = parseRulesYaml(text) ?? [];
  } catch (error) {
    throw new Error(`INSPECTION_BUILT_IN_RULES: ${path}: ${(error as Error).message}`);
  }
  if (!Array.isArray(rules))
    throw new Error(`INSPECTION_BUILT_IN_RULES: ${path} must hold a list of rules`);
  const seen = new Set<string>();
  const refused: string[] = [];
  let withoutUuid = 0;
  const loaded: RuleDefinition[] = [];
  rules.forEach((raw, index) => {
    let fields;
    try {
      fields = validateRule(raw, { builtIn: true });
    } catch (error) {
      // Every rule refused is reported, with its reason, not only the first.
      refused.push(`rule ${index}: ${(error as Error).message}`);
      return;
    }
    const uuid = fields.uuid ?? builtInUuid(withoutUuid++);
    if (seen.has(uuid)) refused.push(`rule ${index}: uuid ${uuid} appears twice`);
    seen.add(uuid);
    loaded.push({
      ...fields,
      uuid,
      created_at: BUILT_IN_CREATED_AT,
      updated_at: null,
      built_in: true,
    });
  });
  if (refused.length)
    throw new Error(
      `INSPECTION_BUILT_IN_RULES: ${path}: ${refused.length} rule(s) refused: ${refused.join(' ')}`,
    );
  return loaded;
}
