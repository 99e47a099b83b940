import { z } from 'zod';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration: ${problems.join('; ')}`);
    this.name = 'ConfigError';
  }
}

const URL_PASSWORD = /^([a-z][a-z0-9+.-]*:\/\/[^/?#@:]*:)[^/?#@]*@/i;

function describeValue(value: unknown): string {
  if (value === undefined) return 'it is not set';
  const text = String(value).replace(URL_PASSWORD, '$1***@');
  return `got "${text.length > 60 ? `${text.slice(0, 57)}...` : text}"`;
}

/** Every problem names its variable; values of variables named as secret are never echoed. */
export function loadConfig<S extends z.ZodType>(
  schema: S,
  env: Record<string, string | undefined> = process.env,
): z.output<S> {
  // Kubernetes and shells often pass empty strings for optional values.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''));
  const result = schema.safeParse(cleaned);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const variable = issue.path.length ? String(issue.path[0]) : '(environment)';
    const secret = /PASSWORD|TOKEN|SECRET|KEY/.test(variable);
    const shown = secret ? 'value hidden' : describeValue(cleaned[variable]);
    return `${variable} ${issue.message} (${shown})`;
  });
  throw new ConfigError(problems);
}

export function loadConfigOrExit<S extends z.ZodType>(service: string, schema: S): z.output<S> {
  try {
    return loadConfig(schema);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${service}: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}
