import { canonicalJson } from '@rollout/contracts';
import type { JsonSchema, LockFile, LockedPackage, Role, RuleId, Violation } from './model';
import { compareSemVer, isMinorBump, parseSemVer } from './semver';

/**
 * Which way a message travels decides what breaks it: an input (request) must keep accepting
 * what old writers send; an output (reply) must keep giving old readers what they expect.
 * Events are stored and replayed and resources are both read and written: both ways.
 */
interface Direction {
  input: boolean;
  output: boolean;
}

export function directionOf(...roles: Role[]): Direction {
  return {
    input: roles.some((role) => role !== 'reply'),
    output: roles.some((role) => role !== 'request'),
  };
}

type Kind = 'string' | 'number' | 'integer' | 'boolean' | 'null' | 'object' | 'array' | 'any';

interface Branch {
  schema: JsonSchema;
  kind: Kind;
  /** When the branch is a closed set. */
  values?: unknown[];
  /** For reserved fields and paths. */
  definition?: string;
}

const LOWER_BOUNDS = ['minLength', 'minimum', 'exclusiveMinimum', 'minItems', 'minProperties'];
const UPPER_BOUNDS = ['maxLength', 'maximum', 'exclusiveMaximum', 'maxItems', 'maxProperties'];
const EXACT = ['pattern', 'format', 'multipleOf'];

function refName(schema: JsonSchema): string | undefined {
  return typeof schema.$ref === 'string' ? schema.$ref.replace(/^#\/definitions\//, '') : undefined;
}

function kindOfValue(value: unknown): Kind {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value as Kind;
}

class SchemaComparison {
  private readonly seen = new Set<string>();

  constructor(
    private readonly packageName: string,
    private readonly before: LockedPackage,
    private readonly after: LockedPackage,
    private readonly out: Violation[],
  ) {}

  private report(rule: RuleId, path: string, message: string): void {
    if (this.out.some((v) => v.rule === rule && v.subject === this.packageName && v.path === path))
      return;
    this.out.push({ rule, subject: this.packageName, path, message });
  }

  private branches(
    schema: JsonSchema,
    definitions: Record<string, JsonSchema>,
    definition?: string,
  ): Branch[] {
    const ref = schema.$ref;
    if (typeof ref === 'string') {
      const name = ref.replace(/^#\/definitions\//, '');
      const target = definitions[name];
      return target
        ? this.branches(target, definitions, name)
        : [{ schema, kind: 'any', definition: name }];
    }
    const union = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
    if (Array.isArray(union))
      return union.flatMap((member) => this.branches(member, definitions, definition));
    if (Array.isArray(schema.enum) || 'const' in schema) {
      const values = Array.isArray(schema.enum) ? (schema.enum as unknown[]) : [schema.const];
      const kinds = [...new Set(values.map(kindOfValue))];
      return kinds.map((kind) => ({
        schema,
        kind,
        values: values.filter((value) => kindOfValue(value) === kind),
        definition,
      }));
    }
    if (Array.isArray(schema.type)) {
      return (schema.type as Kind[]).map((kind) => ({
        schema: { ...schema, type: kind },
        kind,
        definition,
      }));
    }
    if (typeof schema.type === 'string') return [{ schema, kind: schema.type as Kind, definition }];
    if (schema.properties || schema.additionalProperties)
      return [{ schema, kind: 'object', definition }];
    return [{ schema, kind: 'any', definition }];
  }

  compare(before: JsonSchema, after: JsonSchema, path: string, direction: Direction): void {
    if (typeof before.$ref === 'string' && typeof after.$ref === 'string') {
      const key = `${before.$ref}|${after.$ref}|${direction.input}|${direction.output}`;
      if (this.seen.has(key)) return;
      this.seen.add(key);
    }
    const old = this.branches(before, this.before.definitions);
    const now = this.branches(after, this.after.definitions);
    // Paths restart at named types, so a change to a shared type is reported once, by its name.
    const here = refName(after) ?? refName(before) ?? path;

    const oldKinds = new Set(old.map((b) => b.kind));
    const newKinds = new Set(now.map((b) => b.kind));
    const [oldAny, newAny] = [oldKinds.has('any'), newKinds.has('any')];
    if (oldAny || newAny) {
      if (oldAny && !newAny && direction.input) {
        this.report(
          'TYPE_CHANGED',
          here,
          `was any JSON value, is now ${[...newKinds].join(' | ')}`,
        );
      } else if (!oldAny && newAny && direction.output) {
        this.report(
          'TYPE_CHANGED',
          here,
          `was ${[...oldKinds].join(' | ')}, is now any JSON value`,
        );
      }
      return;
    }
    const accepts = (kinds: Set<Kind>, kind: Kind) =>
      kinds.has(kind) || (kind === 'integer' && kinds.has('number'));
    const oldScalar = [...oldKinds].some((k) => k !== 'array' && k !== 'null');
    const newScalar = [...newKinds].some((k) => k !== 'array' && k !== 'null');
    if (oldKinds.has('array') !== newKinds.has('array') && (oldScalar || newScalar)) {
      this.report(
        'CARDINALITY_CHANGED',
        here,
        oldKinds.has('array')
          ? 'was a list, is now a single value'
          : 'was a single value, is now a list (breaking in JSON)',
      );
      return;
    }
    const lost = [...oldKinds].filter((kind) => !accepts(newKinds, kind));
    const gained = [...newKinds].filter((kind) => !accepts(oldKinds, kind));
    if ((direction.input && lost.length) || (direction.output && gained.length)) {
      this.report(
        'TYPE_CHANGED',
        here,
        `was ${[...oldKinds].join(' | ')}, is now ${[...newKinds].join(' | ')}`,
      );
    }

    for (const kind of oldKinds) {
      if (!accepts(newKinds, kind)) continue;
      const oldOfKind = old.filter((b) => b.kind === kind);
      const newOfKind = now.filter(
        (b) => b.kind === kind || (kind === 'integer' && b.kind === 'number'),
      );
      if (kind === 'object') this.compareObjects(oldOfKind, newOfKind, here, direction);
      else if (kind === 'array') this.compareArrays(oldOfKind[0], newOfKind[0], here, direction);
      else this.compareScalars(oldOfKind, newOfKind, here, direction);
    }
  }

  private compareScalars(old: Branch[], now: Branch[], path: string, direction: Direction): void {
    const closed = (branches: Branch[]) => branches.every((b) => b.values);
    const values = (branches: Branch[]) =>
      new Set(branches.flatMap((b) => (b.values ?? []).map((v) => canonicalJson(v))));
    if (closed(old) && closed(now)) {
      const kept = values(now);
      for (const value of values(old)) {
        if (!kept.has(value))
          this.report('ENUM_VALUE_REMOVED', path, `enum value ${value} was removed`);
      }
    } else if (!closed(old) && closed(now) && direction.input) {
      this.report('CONSTRAINT_TIGHTENED', path, 'any value was accepted, now only an enum is');
    }
    if (direction.input) {
      const before = old.find((b) => !b.values)?.schema;
      const after = now.find((b) => !b.values)?.schema;
      if (before && after) this.compareConstraints(before, after, path);
    }
  }

  private compareConstraints(before: JsonSchema, after: JsonSchema, path: string): void {
    const number = (schema: JsonSchema, key: string) =>
      typeof schema[key] === 'number' ? (schema[key] as number) : undefined;
    for (const key of LOWER_BOUNDS) {
      const [b, a] = [number(before, key), number(after, key)];
      if (a !== undefined && (b === undefined || a > b))
        this.report('CONSTRAINT_TIGHTENED', path, `${key} raised from ${b ?? 'none'} to ${a}`);
    }
    for (const key of UPPER_BOUNDS) {
      const [b, a] = [number(before, key), number(after, key)];
      if (a !== undefined && (b === undefined || a < b))
        this.report('CONSTRAINT_TIGHTENED', path, `${key} lowered from ${b ?? 'none'} to ${a}`);
    }
    for (const key of EXACT) {
      if (after[key] !== undefined && canonicalJson(after[key]) !== canonicalJson(before[key])) {
        this.report(
          'CONSTRAINT_TIGHTENED',
          path,
          `${key} changed from ${canonicalJson(before[key])} to ${canonicalJson(after[key])}`,
        );
      }
    }
    if (after.uniqueItems === true && before.uniqueItems !== true)
      this.report('CONSTRAINT_TIGHTENED', path, 'items must now be unique');
  }

  private compareArrays(before: Branch, after: Branch, path: string, direction: Direction): void {
    if (direction.input) this.compareConstraints(before.schema, after.schema, path);
    const [oldItems, newItems] = [before.schema.items, after.schema.items];
    if (oldItems && newItems && !Array.isArray(oldItems) && !Array.isArray(newItems)) {
      this.compare(oldItems as JsonSchema, newItems as JsonSchema, `${path}[]`, direction);
    }
  }

  /** The property every variant carries with one constant value (`@type`, `type`, `kind`…). */
  private discriminator(
    branches: Branch[],
    definitions: Record<string, JsonSchema>,
  ): string | undefined {
    if (branches.length < 2) return undefined;
    const candidates = Object.keys((branches[0].schema.properties ?? {}) as object).sort();
    return candidates.find((name) =>
      branches.every((b) => this.constantOf(b, name, definitions) !== undefined),
    );
  }

  private constantOf(
    branch: Branch,
    property: string,
    definitions: Record<string, JsonSchema>,
  ): string | undefined {
    const schema = (branch.schema.properties as Record<string, JsonSchema> | undefined)?.[property];
    if (!schema) return undefined;
    const values = this.branches(schema, definitions).flatMap(
      (b) => b.values ?? [undefined, undefined],
    );
    return values.length === 1 ? canonicalJson(values[0]) : undefined;
  }

  private compareObjects(old: Branch[], now: Branch[], path: string, direction: Direction): void {
    if (old.length === 1 && now.length === 1)
      return this.compareObject(old[0], now[0], path, direction);
    const oldKey = this.discriminator(old, this.before.definitions);
    const newKey = this.discriminator(now, this.after.definitions);
    if (oldKey) {
      if (oldKey !== newKey) {
        this.report(
          'DISCRIMINATOR_CHANGED',
          path,
          `variants were told apart by "${oldKey}", now ${newKey ? `by "${newKey}"` : 'by nothing'}`,
        );
        return;
      }
      for (const branch of old) {
        const value = this.constantOf(branch, oldKey, this.before.definitions)!;
        const match = now.find((b) => this.constantOf(b, oldKey, this.after.definitions) === value);
        if (!match)
          this.report(
            'DISCRIMINATOR_CHANGED',
            path,
            `the variant with ${oldKey}=${value} was removed`,
          );
        else this.compareObject(branch, match, path, direction);
      }
      return;
    }
    // No discriminator: pair the variants that are the same named type.
    for (const branch of old) {
      const match = now.find((b) => b.definition && b.definition === branch.definition);
      if (match) this.compareObject(branch, match, path, direction);
    }
  }

  private compareObject(before: Branch, after: Branch, parent: string, direction: Direction): void {
    const path = after.definition ?? before.definition ?? parent;
    const at = (field: string) => `${path}.${field}`;
    const oldProps = (before.schema.properties ?? {}) as Record<string, JsonSchema>;
    const newProps = (after.schema.properties ?? {}) as Record<string, JsonSchema>;
    const oldRequired = new Set((before.schema.required ?? []) as string[]);
    const newRequired = new Set((after.schema.required ?? []) as string[]);
    const reserved = new Set(after.definition ? (this.after.reserved[after.definition] ?? []) : []);
    const added = Object.keys(newProps).filter((name) => !(name in oldProps));

    for (const [name, schema] of Object.entries(oldProps)) {
      if (name in newProps) {
        this.compare(schema, newProps[name], at(name), direction);
        continue;
      }
      if (reserved.has(name)) continue;
      const renamedTo = added.find(
        (candidate) => canonicalJson(newProps[candidate]) === canonicalJson(schema),
      );
      if (renamedTo) {
        this.report(
          'FIELD_RENAMED',
          at(name),
          `renamed to "${renamedTo}" (a rename is a removal for every existing client)`,
        );
      } else {
        this.report(
          'FIELD_REMOVED',
          at(name),
          'field removed (deprecate it instead, or list it in reserved of package.ts once it may go)',
        );
      }
    }
    if (direction.input) {
      for (const name of newRequired) {
        if (!oldRequired.has(name)) {
          this.report(
            'REQUIRED_FIELD_ADDED',
            at(name),
            name in oldProps
              ? 'an optional field became required'
              : 'a required field was added (old writers do not send it: make it optional)',
          );
        }
      }
    }
    if (direction.output) {
      for (const name of oldRequired) {
        if (!newRequired.has(name) && name in newProps) {
          this.report(
            'REQUIRED_FIELD_REMOVED',
            at(name),
            'a field readers could count on is now optional',
          );
        }
      }
    }
    const [oldExtra, newExtra] = [
      before.schema.additionalProperties,
      after.schema.additionalProperties,
    ];
    if (direction.input && newExtra === false && oldExtra !== false) {
      this.report('CONSTRAINT_TIGHTENED', path, 'fields it does not name are now refused');
    }
    if (oldExtra && newExtra && typeof oldExtra === 'object' && typeof newExtra === 'object') {
      this.compare(oldExtra as JsonSchema, newExtra as JsonSchema, `${path}{}`, direction);
    }
  }
}

function ref(name: string): JsonSchema {
  return { $ref: `#/definitions/${name}` };
}

export function compareSchemas(
  name: string,
  before: LockedPackage,
  after: LockedPackage,
): Violation[] {
  const out: Violation[] = [];
  const comparison = new SchemaComparison(name, before, after, out);
  for (const [message, role] of Object.entries(before.messages)) {
    const now = after.messages[message];
    if (!now) {
      out.push({
        rule: 'MESSAGE_REMOVED',
        subject: name,
        path: message,
        message: `message ${message} (${role}) was removed`,
      });
      continue;
    }
    comparison.compare(ref(message), ref(message), message, directionOf(role, now));
  }
  for (const [subject, channel] of Object.entries(before.channels)) {
    const now = after.channels[subject];
    if (!now || now.kind !== channel.kind) {
      out.push({
        rule: 'CHANNEL_REMOVED',
        subject: name,
        path: subject,
        message: `subject ${subject} is no longer served`,
      });
      continue;
    }
    const roles: Role[] = channel.kind === 'request-reply' ? ['request', 'reply'] : ['event'];
    channel.messages.forEach((message, index) => {
      if (message !== now.messages[index] && now.messages[index]) {
        comparison.compare(
          ref(message),
          ref(now.messages[index]),
          `${subject}`,
          directionOf(roles[index]),
        );
      }
    });
  }
  return out;
}

export function compareLocks(previous: LockFile, current: LockFile): Violation[] {
  const out: Violation[] = [];
  for (const [name, before] of Object.entries(previous.packages)) {
    const after = current.packages[name];
    if (!after) {
      if (before.stability === 'stable') {
        out.push({
          rule: 'PACKAGE_REMOVED',
          subject: name,
          message: 'a stable package was removed (its clients still speak it)',
        });
      }
      continue;
    }
    const [oldVersion, newVersion] = [parseSemVer(before.version), parseSemVer(after.version)];
    if (oldVersion && newVersion) {
      if (compareSemVer(newVersion, oldVersion) < 0) {
        out.push({
          rule: 'VERSION_DECREASED',
          subject: name,
          message: `version went from ${before.version} back to ${after.version}`,
        });
      } else if (before.hash !== after.hash && !isMinorBump(oldVersion, newVersion)) {
        out.push({
          rule: 'VERSION_NOT_BUMPED',
          subject: name,
          message: `the schema changed (hash ${before.hash.slice(7, 19)} → ${after.hash.slice(7, 19)}) but the version went from ${before.version} to ${after.version}: bump the minor version in package.ts`,
        });
      }
    }
    if (before.stability !== 'stable') continue; // alpha packages may change freely
    if (after.stability !== 'stable') {
      out.push({
        rule: 'STABILITY_DOWNGRADED',
        subject: name,
        message: 'a stable package cannot become alpha',
      });
      continue;
    }
    out.push(...compareSchemas(name, before, after));
  }
  return out;
}
