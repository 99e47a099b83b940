import { schemas } from '@asyncapi/specs';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ASYNCAPI_FILE, OPENAPI_FILE, REPO_ROOT } from './paths';

/**
 * The generated API documents are valid: the AsyncAPI document against the official AsyncAPI
 * 2.6.0 JSON Schema, both documents' internal references resolve, and the OpenAPI document
 * has the shape tools and clients rely on (unique operation ids, declared path parameters).
 */
const read = (path: string) => JSON.parse(readFileSync(join(REPO_ROOT, path), 'utf8')) as Record<string, unknown>;
const asyncapi = read(ASYNCAPI_FILE);
const openapi = read(OPENAPI_FILE);

function refs(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((item) => refs(item, found));
  else if (value && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string') found.push(child);
      else refs(child, found);
    }
  }
  return found;
}

function resolves(document: Record<string, unknown>, ref: string): boolean {
  if (!ref.startsWith('#/')) return false;
  let node: unknown = document;
  for (const token of ref.slice(2).split('/')) {
    const key = decodeURIComponent(token).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!node || typeof node !== 'object' || !(key in node)) return false;
    node = (node as Record<string, unknown>)[key];
  }
  return true;
}

describe('generated AsyncAPI document', () => {
  it('is valid AsyncAPI 2.6.0', () => {
    // The AsyncAPI schema embeds the draft-07 meta-schema itself: leave Ajv's own out.
    const ajv = new Ajv({ allErrors: true, strict: false, validateSchema: false, meta: false });
    addFormats(ajv);
    const validate = ajv.compile(schemas['2.6.0'] as object);
    expect(validate(asyncapi) ? [] : validate.errors).toEqual([]);
  });

  it('resolves every reference and describes every package subject', () => {
    expect(refs(asyncapi).filter((ref) => !resolves(asyncapi, ref))).toEqual([]);
    const channels = Object.keys(asyncapi.channels as object);
    expect(channels).toEqual(expect.arrayContaining(['experiment.v1.policies.create', 'system.v1.{service}.info']));
  });
});

describe('generated OpenAPI document', () => {
  const operations = Object.entries(openapi.paths as Record<string, Record<string, { operationId?: string; parameters?: { in: string; name: string }[] }>>).flatMap(
    ([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ path, method, operation })),
  );

  it('is OpenAPI 3 with a version and every route under a major', () => {
    expect(openapi.openapi).toMatch(/^3\./);
    expect((openapi.info as { version?: string }).version).toMatch(/^\d+\.\d+\.\d+/);
    expect(operations.length).toBeGreaterThan(0);
    expect(operations.filter(({ path }) => !/^\/v\d+(alpha\d*|beta\d*)?\//.test(path)).map(({ path }) => path)).toEqual([]);
  });

  it('resolves every reference and has unique operation ids', () => {
    expect(refs(openapi).filter((ref) => !resolves(openapi, ref))).toEqual([]);
    const ids = operations.map(({ operation }) => operation.operationId);
    expect(ids.filter((id) => !id)).toEqual([]);
    expect(ids.filter((id, index) => ids.indexOf(id) !== index)).toEqual([]);
  });

  // OpenAPI linters (Redocly's path-parameters-defined) refuse a path parameter that no
  // operation declares.
  it('declares every path parameter of every route', () => {
    const undeclared = operations.flatMap(({ path, method, operation }) =>
      [...path.matchAll(/\{([^}]+)\}/g)]
        .map((match) => match[1])
        .filter((name) => !(operation.parameters ?? []).some((p) => p.in === 'path' && p.name === name))
        .map((name) => `${method.toUpperCase()} ${path}: {${name}}`),
    );
    expect(undeclared).toEqual([]);
  });
});
