import type { ContractPackageDefinition } from '@rollout/contracts';
import { compareLocks } from './compat';
import { lockPackage } from './lock';
import type { JsonSchema, LockFile, RuleId } from './model';

/**
 * One test per compatibility rule: each shows the rule catches the break, and lets the
 * compatible change through. Packages are built the way the tool builds them (lockPackage).
 */
type Definitions = Record<string, JsonSchema>;

const base: Definitions = {
  CreateWidgetRequest: {
    type: 'object',
    properties: {
      name: { type: 'string', maxLength: 63 },
      color: { $ref: '#/definitions/Color' },
      tags: { type: 'array', items: { type: 'string' } },
    },
    required: ['name'],
  },
  Widget: {
    type: 'object',
    properties: {
      name: { type: 'string' },
      color: { $ref: '#/definitions/Color' },
      size: { type: 'number' },
      shape: { $ref: '#/definitions/Shape' },
    },
    required: ['name', 'color'],
  },
  Color: { type: 'string', enum: ['RED', 'GREEN'] },
  Shape: { anyOf: [{ $ref: '#/definitions/Circle' }, { $ref: '#/definitions/Square' }] },
  Circle: {
    type: 'object',
    properties: { kind: { type: 'string', const: 'circle' }, radius: { type: 'number' } },
    required: ['kind', 'radius'],
  },
  Square: {
    type: 'object',
    properties: { kind: { type: 'string', const: 'square' }, side: { type: 'number' } },
    required: ['kind', 'side'],
  },
  WidgetEvent: {
    type: 'object',
    properties: { id: { type: 'string' }, widget: { $ref: '#/definitions/Widget' } },
    required: ['id', 'widget'],
  },
};

function definition(overrides: Partial<ContractPackageDefinition> = {}): ContractPackageDefinition {
  return {
    name: 'widget.v1',
    version: '1.0.0',
    stability: 'stable',
    requests: ['CreateWidgetRequest'],
    replies: ['Widget'],
    events: ['WidgetEvent'],
    resources: [],
    requestReply: [
      {
        subject: 'widget.v1.create',
        service: 'gateway',
        request: 'CreateWidgetRequest',
        reply: 'Widget',
      },
    ],
    ...overrides,
  };
}

function lock(
  definitions: Definitions,
  overrides: Partial<ContractPackageDefinition> = {},
): LockFile {
  return {
    lockVersion: 1,
    packages: { 'widget.v1': lockPackage(definition(overrides), definitions, []) },
  };
}

/** `base` with `change` applied to a deep copy. */
function changed(change: (d: Definitions) => void): Definitions {
  const copy = structuredClone(base);
  change(copy);
  return copy;
}

const props = (d: Definitions, type: string) => d[type].properties as Record<string, JsonSchema>;
const required = (d: Definitions, type: string) => d[type].required as string[];

/** Compares base → next (with a minor bump, so only the schema rules speak). */
function check(next: Definitions, overrides: Partial<ContractPackageDefinition> = {}) {
  return compareLocks(lock(base), lock(next, { version: '1.1.0', ...overrides }));
}

const rules = (violations: { rule: RuleId; path?: string }[]) =>
  violations.map((v) => `${v.rule} ${v.path ?? ''}`.trim());

describe('compatibility rules', () => {
  it('allows adding an optional field anywhere, and adding a message', () => {
    const next = changed((d) => {
      props(d, 'CreateWidgetRequest').note = { type: 'string' };
      props(d, 'Widget').weight = { type: 'number' };
      d.DeleteWidgetRequest = {
        type: 'object',
        properties: { name: { type: 'string' } },
        required: ['name'],
      };
    });
    expect(check(next, { requests: ['CreateWidgetRequest', 'DeleteWidgetRequest'] })).toEqual([]);
  });

  it('FIELD_REMOVED: removing a field breaks; not once it is reserved', () => {
    const next = changed((d) => delete props(d, 'Widget').size);
    expect(rules(check(next))).toEqual(['FIELD_REMOVED Widget.size']);
    expect(check(next, { reserved: { Widget: ['size'] } })).toEqual([]);
  });

  it('FIELD_RENAMED: a field removed and one of the same type added is a rename', () => {
    const next = changed((d) => {
      props(d, 'Widget').sizeMm = props(d, 'Widget').size;
      delete props(d, 'Widget').size;
    });
    const violations = check(next);
    expect(rules(violations)).toEqual(['FIELD_RENAMED Widget.size']);
    expect(violations[0].message).toContain('"sizeMm"');
    // Adding the new name beside the old one is the compatible way.
    expect(check(changed((d) => (props(d, 'Widget').sizeMm = { type: 'number' })))).toEqual([]);
  });

  it('TYPE_CHANGED: a changed type breaks; widening what a request accepts does not', () => {
    expect(rules(check(changed((d) => (props(d, 'Widget').size = { type: 'string' }))))).toEqual([
      'TYPE_CHANGED Widget.size',
    ]);
    // A reply that may now be null breaks its readers…
    expect(
      rules(check(changed((d) => (props(d, 'Widget').size = { type: ['number', 'null'] })))),
    ).toEqual(['TYPE_CHANGED Widget.size']);
    // …a request that also accepts a number breaks no writer.
    expect(
      check(
        changed(
          (d) =>
            (props(d, 'CreateWidgetRequest').name = { type: ['string', 'number'], maxLength: 63 }),
        ),
      ),
    ).toEqual([]);
  });

  it('CARDINALITY_CHANGED: scalar ↔ list breaks (JSON has no implicit list); a new list field does not', () => {
    expect(
      rules(
        check(
          changed((d) => (props(d, 'Widget').size = { type: 'array', items: { type: 'number' } })),
        ),
      ),
    ).toEqual(['CARDINALITY_CHANGED Widget.size']);
    expect(
      rules(check(changed((d) => (props(d, 'CreateWidgetRequest').tags = { type: 'string' })))),
    ).toEqual(['CARDINALITY_CHANGED CreateWidgetRequest.tags']);
    expect(
      check(
        changed((d) => (props(d, 'Widget').sizes = { type: 'array', items: { type: 'number' } })),
      ),
    ).toEqual([]);
  });

  it('REQUIRED_FIELD_ADDED: a request may not require more; a reply may promise more', () => {
    const request = changed((d) => {
      props(d, 'CreateWidgetRequest').owner = { type: 'string' };
      required(d, 'CreateWidgetRequest').push('owner');
    });
    expect(rules(check(request))).toEqual(['REQUIRED_FIELD_ADDED CreateWidgetRequest.owner']);
    const optionalToRequired = changed((d) => required(d, 'CreateWidgetRequest').push('tags'));
    expect(rules(check(optionalToRequired))).toEqual([
      'REQUIRED_FIELD_ADDED CreateWidgetRequest.tags',
    ]);
    const reply = changed((d) => required(d, 'Widget').push('size'));
    // Widget is also inside WidgetEvent (an event: checked both ways), so use a reply-only copy.
    expect(
      check(reply, { events: [], streams: [] }).filter((v) => v.path === 'Widget.size'),
    ).toEqual([]);
  });

  it('REQUIRED_FIELD_REMOVED: a reply or event may not drop a promise; a request may ask less', () => {
    const reply = changed((d) => (d.Widget.required = ['name']));
    expect(rules(check(reply))).toEqual(['REQUIRED_FIELD_REMOVED Widget.color']);
    expect(check(changed((d) => (d.CreateWidgetRequest.required = [])))).toEqual([]);
  });

  it('ENUM_VALUE_REMOVED: removing an enum value breaks; adding one is allowed', () => {
    expect(rules(check(changed((d) => (d.Color.enum = ['RED']))))).toEqual([
      'ENUM_VALUE_REMOVED Color',
    ]);
    expect(check(changed((d) => (d.Color.enum = ['RED', 'GREEN', 'BLUE'])))).toEqual([]);
  });

  it('DISCRIMINATOR_CHANGED: a variant removed or a new discriminator breaks; a new variant does not', () => {
    const renamed = changed((d) => {
      for (const name of ['Circle', 'Square']) {
        props(d, name).type = props(d, name).kind;
        delete props(d, name).kind;
        d[name].required = ['type', name === 'Circle' ? 'radius' : 'side'];
      }
    });
    expect(rules(check(renamed))).toEqual(['DISCRIMINATOR_CHANGED Shape']);
    const triangle = changed((d) => {
      d.Triangle = {
        type: 'object',
        properties: { kind: { type: 'string', const: 'triangle' }, base: { type: 'number' } },
        required: ['kind'],
      };
      (d.Shape.anyOf as JsonSchema[]).push({ $ref: '#/definitions/Triangle' });
    });
    expect(check(triangle)).toEqual([]);
    const withoutSquare = changed((d) => {
      d.Triangle = {
        type: 'object',
        properties: { kind: { type: 'string', const: 'triangle' } },
        required: ['kind'],
      };
      d.Shape.anyOf = [{ $ref: '#/definitions/Circle' }, { $ref: '#/definitions/Triangle' }];
    });
    expect(rules(check(withoutSquare))).toEqual(['DISCRIMINATOR_CHANGED Shape']);
  });

  it('MESSAGE_REMOVED and CHANNEL_REMOVED: a message or subject that goes breaks its users', () => {
    const violations = check(
      changed((d) => delete d.WidgetEvent),
      { events: [] },
    );
    expect(rules(violations)).toEqual(['MESSAGE_REMOVED WidgetEvent']);
    expect(rules(check(base, { requestReply: [] }))).toEqual(['CHANNEL_REMOVED widget.v1.create']);
    // Serving a subject with a differently named but compatible request is fine.
    const alias = changed(
      (d) => (d.NewCreateWidgetRequest = structuredClone(d.CreateWidgetRequest)),
    );
    const moved = {
      requestReply: [
        {
          subject: 'widget.v1.create',
          service: 'gateway' as const,
          request: 'NewCreateWidgetRequest',
          reply: 'Widget',
        },
      ],
    };
    expect(check(alias, moved)).toEqual([]);
  });

  it('CONSTRAINT_TIGHTENED: a request may not accept less; it may accept more', () => {
    const tighter = changed(
      (d) =>
        (props(d, 'CreateWidgetRequest').name = {
          type: 'string',
          maxLength: 32,
          pattern: '^[a-z]+$',
        }),
    );
    expect(rules(check(tighter))).toEqual(['CONSTRAINT_TIGHTENED CreateWidgetRequest.name']);
    expect(
      check(
        changed((d) => (props(d, 'CreateWidgetRequest').name = { type: 'string', maxLength: 255 })),
      ),
    ).toEqual([]);
  });

  it('follows changes into shared types once, by the type name', () => {
    const violations = check(changed((d) => delete props(d, 'Widget').name));
    expect(rules(violations)).toEqual(['FIELD_REMOVED Widget.name']);
  });
});

describe('version rules', () => {
  const next = changed((d) => (props(d, 'Widget').weight = { type: 'number' }));

  it('VERSION_NOT_BUMPED: a changed schema needs a minor (or major) bump; a patch is not enough', () => {
    expect(rules(compareLocks(lock(base), lock(next)))).toEqual(['VERSION_NOT_BUMPED']);
    expect(rules(compareLocks(lock(base), lock(next, { version: '1.0.1' })))).toEqual([
      'VERSION_NOT_BUMPED',
    ]);
    expect(compareLocks(lock(base), lock(next, { version: '1.1.0' }))).toEqual([]);
  });

  it('leaves the version alone when only descriptions change (they are not in the hash)', () => {
    const described = changed(
      (d) => (props(d, 'Widget').size = { type: 'number', description: 'In millimetres.' }),
    );
    expect(compareLocks(lock(base), lock(described))).toEqual([]);
  });

  it('VERSION_DECREASED: a version never goes back', () => {
    expect(
      rules(compareLocks(lock(base, { version: '1.2.0' }), lock(base, { version: '1.1.0' }))),
    ).toEqual(['VERSION_DECREASED']);
  });

  it('PACKAGE_REMOVED: a stable package may not disappear; an alpha one may', () => {
    const empty: LockFile = { lockVersion: 1, packages: {} };
    expect(rules(compareLocks(lock(base), empty))).toEqual(['PACKAGE_REMOVED']);
    expect(compareLocks(lock(base, { stability: 'alpha' }), empty)).toEqual([]);
  });

  it('STABILITY_DOWNGRADED: a stable package cannot become alpha', () => {
    expect(rules(compareLocks(lock(base), lock(base, { stability: 'alpha' })))).toEqual([
      'STABILITY_DOWNGRADED',
    ]);
  });

  it('exempts alpha packages from the breaking-change rules (not from version bumps)', () => {
    const broken = changed((d) => {
      delete props(d, 'Widget').size;
      d.Color.enum = ['RED'];
    });
    expect(
      compareLocks(
        lock(base, { stability: 'alpha' }),
        lock(broken, { stability: 'alpha', version: '1.1.0' }),
      ),
    ).toEqual([]);
    expect(
      rules(compareLocks(lock(base, { stability: 'alpha' }), lock(broken, { stability: 'alpha' }))),
    ).toEqual(['VERSION_NOT_BUMPED']);
  });
});
