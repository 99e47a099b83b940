export interface FieldViolation {
  field: string;
  description: string;
}

const MAX_VIOLATIONS = 50;
const MAX_LIST = 256;

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Collects a policy's problems by field path, at most 50. */
export class Violations {
  readonly found: FieldViolation[] = [];
  add(field: string, description: string) {
    if (this.found.length < MAX_VIOLATIONS) this.found.push({ field, description });
  }
  unknownFields(
    value: Record<string, unknown>,
    allowed: ReadonlySet<string>,
    path: string,
    ignored: ReadonlySet<string> = new Set(),
  ) {
    for (const key of Object.keys(value)) {
      if (!allowed.has(key) && !ignored.has(key)) this.add(`${path}.${key}`, 'unknown field');
    }
  }
  /** A list of at most 256 items, each checked by `check`; undefined when absent or not a list. */
  list(
    value: unknown,
    path: string,
    check: (item: unknown) => string | undefined,
  ): string[] | undefined {
    if (value === undefined) return undefined;
    if (!Array.isArray(value)) return (void this.add(path, 'must be a list'), undefined);
    if (value.length > MAX_LIST)
      return (void this.add(path, `at most ${MAX_LIST} items`), undefined);
    value.forEach((item, i) => {
      const problem = check(item);
      if (problem) this.add(`${path}[${i}]`, problem);
    });
    return value as string[];
  }
}
