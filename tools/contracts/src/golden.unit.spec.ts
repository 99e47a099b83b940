import * as contracts from '@rollout/contracts';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JsonSchema, LockFile } from './model';
import { GOLDEN_DIR, LOCK_FILE, REPO_ROOT, SCHEMA_ID_BASE, schemaFile } from './paths';

/**
 * Golden example messages: `libs/contracts/golden/<package>/<version>/<Message>[.<case>].json`.
 * Every example of every released version must still validate against the current schema of
 * its package (the package name carries the major, so that is the current schema of the same
 * major): an old client's message must still be a valid message. The schemas read here are the
 * committed generated ones, which `npm run contracts:check` keeps current.
 */
const read = (path: string) => JSON.parse(readFileSync(join(REPO_ROOT, path), 'utf8')) as unknown;
const lock = read(LOCK_FILE) as LockFile;
const goldenRoot = join(REPO_ROOT, GOLDEN_DIR);
const dirs = (path: string) =>
  existsSync(path)
    ? readdirSync(path)
        .filter((e) => !e.includes('.json'))
        .sort()
    : [];

interface Golden {
  packageName: string;
  version: string;
  message: string;
  file: string;
}

const goldens: Golden[] = dirs(goldenRoot).flatMap((packageName) =>
  dirs(join(goldenRoot, packageName)).flatMap((version) =>
    readdirSync(join(goldenRoot, packageName, version))
      .filter((file) => file.endsWith('.json'))
      .sort()
      .map((file) => ({
        packageName,
        version,
        message: file.split('.')[0],
        file: `${GOLDEN_DIR}/${packageName}/${version}/${file}`,
      })),
  ),
);

/** Hand-written JSON Schemas a package exports for its hot paths (e.g. TRAFFIC_EVENT_SCHEMA), by `<package>.<Message>`. */
const handWritten = new Map<string, JsonSchema>();
for (const value of Object.values(contracts)) {
  const id = (value as { $id?: unknown } | null)?.$id;
  const match =
    typeof id === 'string' ? new RegExp(`^${SCHEMA_ID_BASE}(.+)\\.json$`).exec(id) : null;
  if (match) handWritten.set(match[1], value as JsonSchema);
}

// Formats too: a golden with a date that is no RFC 3339 date-time is a wrong example.
const ajv = addFormats(new Ajv({ allErrors: true, strict: false }));
const validators = new Map<string, ValidateFunction | undefined>();
function validator(packageName: string, message: string): ValidateFunction | undefined {
  const key = `${packageName}#${message}`;
  if (!validators.has(key)) {
    const id = `${SCHEMA_ID_BASE}${packageName}.schema.json`;
    if (!ajv.getSchema(id) && existsSync(join(REPO_ROOT, schemaFile(packageName))))
      ajv.addSchema(read(schemaFile(packageName)) as JsonSchema);
    const known = !!lock.packages[packageName]?.messages[message];
    validators.set(key, known ? ajv.getSchema(`${id}#/definitions/${message}`) : undefined);
  }
  return validators.get(key);
}

describe('golden messages', () => {
  it('exist', () => {
    expect(goldens.length).toBeGreaterThan(0);
  });

  it.each(goldens.map((g) => [g.file, g] as const))(
    '%s validates against the current schema of its major',
    (_, golden) => {
      expect(lock.packages[golden.packageName]).toBeDefined();
      const validate = validator(golden.packageName, golden.message);
      if (!validate)
        throw new Error(`${golden.packageName} has no message ${golden.message} any more`);
      const example = read(golden.file);
      const valid = validate(example);
      expect(valid ? [] : validate.errors).toEqual([]);
      const own = handWritten.get(`${golden.packageName}.${golden.message}`);
      if (own) {
        // A hand-written schema the services compile must agree with the generated one.
        const validateOwn = ajv.compile(own);
        expect(validateOwn(example) ? [] : validateOwn.errors).toEqual([]);
      }
    },
  );

  it('cover every message of every stable package, and its current version', () => {
    const missing: string[] = [];
    for (const [name, locked] of Object.entries(lock.packages)) {
      if (locked.stability !== 'stable') continue;
      if (!goldens.some((g) => g.packageName === name && g.version === locked.version)) {
        missing.push(
          `${GOLDEN_DIR}/${name}/${locked.version}/ (examples of what this version changed)`,
        );
      }
      for (const message of Object.keys(locked.messages)) {
        if (!goldens.some((g) => g.packageName === name && g.message === message))
          missing.push(`${name} ${message}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
