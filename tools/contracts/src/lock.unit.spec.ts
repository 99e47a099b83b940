import type { ContractPackageDefinition } from '@rollout/contracts';
import { canonicalize, contentHash } from './canonical';
import { checkPackage, lockPackage } from './lock';
import type { JsonSchema, RuleId } from './model';

const definitions: Record<string, JsonSchema> = {
  Widget: {
    type: 'object',
    description: 'A widget.',
    properties: { name: { type: 'string' }, size: { type: 'number' }, sizeMm: { type: 'number' } },
    required: ['name'],
  },
};

function definition(overrides: Partial<ContractPackageDefinition> = {}): ContractPackageDefinition {
  return {
    name: 'widget.v1',
    version: '1.2.0',
    stability: 'stable',
    requests: [],
    replies: ['Widget'],
    events: [],
    resources: [],
    ...overrides,
  };
}

const rules = (
  overrides: Partial<ContractPackageDefinition>,
  dir = 'widget.v1',
  lib: string | undefined = 'stable',
  defs = definitions,
) => checkPackage(dir, definition(overrides), lib, defs).map((v) => v.rule as RuleId);

describe('package rules', () => {
  it('accepts a well-formed package', () => {
    expect(rules({})).toEqual([]);
  });

  it('PACKAGE_NAME_MISMATCH: the name is the directory, major included', () => {
    expect(rules({ name: 'widget.v2' })).toEqual(['PACKAGE_NAME_MISMATCH']);
  });

  it('INVALID_VERSION: semver, with the major of the name', () => {
    expect(rules({ version: '1.2' })).toEqual(['INVALID_VERSION']);
    expect(rules({ version: '2.0.0' })).toEqual(['INVALID_VERSION']);
    expect(
      rules(
        { name: 'widget.v2alpha', stability: 'alpha', version: '2.0.0-alpha.1' },
        'widget.v2alpha',
        'alpha',
      ),
    ).toEqual([]);
  });

  it('STABILITY_MISMATCH: alpha majors are alpha, and live in a lib tagged stability:alpha', () => {
    expect(rules({ stability: 'alpha' })).toEqual(['STABILITY_MISMATCH', 'STABILITY_MISMATCH']);
    expect(
      rules(
        { name: 'widget.v2alpha', stability: 'alpha', version: '2.0.0' },
        'widget.v2alpha',
        'stable',
      ),
    ).toEqual(['STABILITY_MISMATCH']);
    expect(rules({}, 'widget.v1', undefined)).toEqual([]);
  });

  it('INVALID_FEATURE: client features are reverse-DNS names', () => {
    expect(rules({ features: ['batch'] })).toEqual(['INVALID_FEATURE']);
    expect(rules({ features: ['dev.policy-rollout.widget.batch'] })).toEqual([]);
  });

  it('RESERVED_FIELD_REUSED: a reserved name never comes back', () => {
    expect(rules({ reserved: { Widget: ['size'] } })).toEqual(['RESERVED_FIELD_REUSED']);
    expect(rules({ reserved: { Widget: ['colour'] } })).toEqual([]);
  });

  it('INVALID_DEPRECATION: a replacement that exists, a since within this major and not after the version', () => {
    const ok = { target: 'Widget.size', since: '1.1.0', replacement: 'Widget.sizeMm' };
    expect(rules({ deprecations: [ok] })).toEqual([]);
    expect(rules({ deprecations: [{ ...ok, replacement: 'Widget.length' }] })).toEqual([
      'INVALID_DEPRECATION',
    ]);
    expect(rules({ deprecations: [{ ...ok, replacement: '' }] })).toEqual(['INVALID_DEPRECATION']);
    expect(rules({ deprecations: [{ ...ok, since: '1.3.0' }] })).toEqual(['INVALID_DEPRECATION']);
    expect(rules({ deprecations: [{ ...ok, target: 'Widget.weight' }] })).toEqual([
      'INVALID_DEPRECATION',
    ]);
    expect(rules({ deprecations: [{ ...ok, sunset: 'soon' }] })).toEqual(['INVALID_DEPRECATION']);
  });

  it('UNDECLARED_DEPRECATION: a @deprecated field needs since and replacement in package.ts', () => {
    const deprecated = structuredClone(definitions);
    (deprecated.Widget.properties as Record<string, JsonSchema>).size.deprecated = true;
    expect(rules({}, 'widget.v1', 'stable', deprecated)).toEqual(['UNDECLARED_DEPRECATION']);
    expect(
      rules(
        { deprecations: [{ target: 'Widget.size', since: '1.1.0', replacement: 'Widget.sizeMm' }] },
        'widget.v1',
        'stable',
        deprecated,
      ),
    ).toEqual([]);
  });
});

describe('canonical form and hash', () => {
  it('ignores descriptions, key order and the order of required and enum values', () => {
    const a = {
      type: 'object',
      description: 'x',
      properties: { b: { type: 'string', enum: ['X', 'Y'] }, a: { type: 'number' } },
      required: ['a', 'b'],
    };
    const b = {
      required: ['b', 'a'],
      properties: { a: { type: 'number', title: 'A' }, b: { enum: ['Y', 'X'], type: 'string' } },
      type: 'object',
    };
    expect(contentHash(canonicalize(a))).toEqual(contentHash(canonicalize(b)));
  });

  it('changes with a field, a type, a constraint or a required field', () => {
    const base = { type: 'object', properties: { a: { type: 'string' } } };
    const hash = contentHash(canonicalize(base));
    for (const changed of [
      { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } } },
      { type: 'object', properties: { a: { type: 'number' } } },
      { type: 'object', properties: { a: { type: 'string', maxLength: 3 } } },
      { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
    ]) {
      expect(contentHash(canonicalize(changed))).not.toEqual(hash);
    }
  });

  it('puts deprecations into the hash (deprecating is a minor change)', () => {
    const plain = lockPackage(definition(), definitions, []);
    const deprecated = lockPackage(
      definition({
        deprecations: [{ target: 'Widget.size', since: '1.2.0', replacement: 'Widget.sizeMm' }],
      }),
      definitions,
      [],
    );
    expect(deprecated.hash).not.toEqual(plain.hash);
    expect(
      (deprecated.definitions.Widget.properties as Record<string, JsonSchema>).size,
    ).toMatchObject({ deprecated: true });
    expect(deprecated.definitions.Widget.description).toBeUndefined();
  });
});
