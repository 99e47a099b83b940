import { EnforcementConfig, EnforcementConfigError, parseEnforcementConfig } from '@rollout/enforcement-domain';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

export const ENFORCEMENT_CONFIG = Symbol('ENFORCEMENT_CONFIG');

/**
 * Reads and validates the filter chain file. Every problem is one line naming the file and the
 * setting, e.g. `invalid enforcement config in /etc/…/enforcement.yaml: enabled_filters[1]: unknown filter "Quota"`.
 */
export function loadEnforcementConfig(path: string, env: NodeJS.ProcessEnv = process.env): EnforcementConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message;
    throw new EnforcementConfigError(`ENFORCEMENT_CONFIG_FILE: cannot read ${path}: ${reason}`);
  }
  let document: unknown;
  try {
    document = parse(text, { maxAliasCount: 100, prettyErrors: false });
  } catch (error) {
    throw new EnforcementConfigError(`ENFORCEMENT_CONFIG_FILE: ${path} is not valid YAML: ${(error as Error).message.split('\n')[0]}`);
  }
  try {
    return parseEnforcementConfig(document, env);
  } catch (error) {
    if (error instanceof EnforcementConfigError) {
      throw new EnforcementConfigError(error.message.replace(/^invalid enforcement config: /, `invalid enforcement config in ${path}: `));
    }
    throw error;
  }
}

/** For main.ts: the config, or one line on stderr and exit 1 before anything connects. */
export function loadEnforcementConfigOrExit(service: string, path: string): EnforcementConfig {
  try {
    return loadEnforcementConfig(path);
  } catch (error) {
    if (error instanceof EnforcementConfigError) {
      process.stderr.write(`${service}: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}
