import { join } from 'node:path';

export const REPO_ROOT = join(__dirname, '..', '..', '..');

/** All committed; CI fails when stale. */
export const LOCK_FILE = 'libs/contracts/contracts.lock.json';
export const GENERATED_DIR = 'libs/contracts/generated';
export const SCHEMAS_DIR = `${GENERATED_DIR}/schemas`;
export const ASYNCAPI_FILE = `${GENERATED_DIR}/asyncapi.json`;
export const OPENAPI_FILE = `${GENERATED_DIR}/openapi.json`;
export const GOLDEN_DIR = 'libs/contracts/golden';
/** The error model (google.rpc.Status) every request/reply subject may answer with. */
export const STATUS_FILE = 'libs/contracts/src/status.ts';

export const schemaFile = (packageName: string) => `${SCHEMAS_DIR}/${packageName}.schema.json`;
export const SCHEMA_ID_BASE = 'https://policy-rollout.dev/schemas/';
