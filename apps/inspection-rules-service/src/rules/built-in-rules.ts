import { StatusError } from '@rollout/contracts';
import { RuleDefinition, validateRule } from '@rollout/inspection-domain';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

/** Built-ins sort before user rules of the same priority: they are older than any of them. */
const BUILT_IN_CREATED_AT = '1970-01-01T00:00:00.000Z';

/** A stable uuid for a built-in rule without one, so its uuid survives restarts. */
function builtInUuid(index: number, rule: unknown): string {
  const hex = createHash('sha256').update(`built-in:${index}:${JSON.stringify(rule)}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** Parses YAML rules (built-ins and imports) with the safe core schema and a small alias budget. */
export function parseRulesYaml(text: string): unknown {
  try {
    return parse(text, { maxAliasCount: 100, prettyErrors: false });
  } catch (error) {
    throw StatusError.invalidArgument(`Invalid YAML: ${error instanceof Error ? error.message.split('\n')[0] : 'unreadable'}`);
  }
}

/** Reads and validates the built-in rules file; any problem stops the service at start. */
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
  if (!Array.isArray(rules)) throw new Error(`INSPECTION_BUILT_IN_RULES: ${path} must hold a list of rules`);
  const seen = new Set<string>();
  return rules.map((raw, index) => {
    let fields;
    try {
      fields = validateRule(raw, { builtIn: true });
    } catch (error) {
      throw new Error(`INSPECTION_BUILT_IN_RULES: ${path}: rule ${index}: ${(error as Error).message}`);
    }
    const uuid = fields.uuid ?? builtInUuid(index, raw);
    if (seen.has(uuid)) throw new Error(`INSPECTION_BUILT_IN_RULES: ${path}: uuid ${uuid} appears twice`);
    seen.add(uuid);
    return { ...fields, uuid, created_at: BUILT_IN_CREATED_AT, updated_at: null, built_in: true };
  });
}
