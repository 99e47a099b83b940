import {
  CONTRACT_PACKAGES,
  CONTRACT_PACKAGE_DEFINITIONS,
  EXPERIMENT_SUBJECTS,
  EXPERIMENT_V1,
  SYSTEM_V1,
  checkContractVersion,
  clientNameOf,
  definePackage,
  deprecationHeaders,
  findDeprecatedUses,
  isRefused,
  packageOfSubject,
  parseUserAgent,
} from './index';

/** A package of a fictional service, with one warned and one disallowed deprecation. */
const WIDGET_V1_PACKAGE = definePackage({
  name: 'widget.v1',
  version: '1.4.0',
  stability: 'stable',
  requests: ['CreateWidgetRequest', 'LegacyImportRequest'],
  replies: ['Widget'],
  events: [],
  resources: ['Widget'],
  requestReply: [
    {
      subject: 'widget.v1.widgets.create',
      service: 'experiment-service',
      request: 'CreateWidgetRequest',
      reply: 'Widget',
    },
    {
      subject: 'widget.v1.widgets.import',
      service: 'experiment-service',
      request: 'LegacyImportRequest',
      reply: 'Widget',
    },
  ],
  deprecations: [
    {
      target: 'CreateWidgetRequest.size',
      since: '1.2.0',
      replacement: 'CreateWidgetRequest.sizeMm',
      date: '2026-01-01',
      sunset: '2026-12-31',
    },
    {
      target: 'CreateWidgetRequest.colour',
      since: '1.3.0',
      replacement: 'CreateWidgetRequest.color',
      disallowedByDefault: true,
    },
    { target: 'widget.v1.widgets.import', since: '1.4.0', replacement: 'widget.v1.widgets.create' },
  ],
});

describe('client identity', () => {
  it('names a client by the first product of its User-Agent, else unknown', () => {
    expect(parseUserAgent('acme-exporter/2.3.1 (linux; x64)')).toEqual({
      name: 'acme-exporter',
      version: '2.3.1',
    });
    expect(parseUserAgent('Gateway')).toEqual({ name: 'gateway' });
    expect(clientNameOf('curl/8.4.0')).toBe('curl');
    for (const bad of [undefined, '', '   ', '(compatible)', '/1.0', 'a'.repeat(80)])
      expect(clientNameOf(bad)).toBe('unknown');
  });

  it('finds the package of a subject among the contract packages, with its package.ts version', () => {
    expect(packageOfSubject(EXPERIMENT_SUBJECTS.commit, CONTRACT_PACKAGES)).toEqual(EXPERIMENT_V1);
    expect(packageOfSubject('system.v1.evaluator.info', CONTRACT_PACKAGES)?.version).toBe(
      SYSTEM_V1.version,
    );
    expect(packageOfSubject('experiment.v10.policies.get', CONTRACT_PACKAGES)).toBeUndefined();
    expect(packageOfSubject('echo.v1.say', CONTRACT_PACKAGES)).toBeUndefined();
  });

  it('accepts any minor of a served major, no header or an unparseable one, and refuses another major', () => {
    const served = [SYSTEM_V1, EXPERIMENT_V1];
    expect(checkContractVersion(undefined, served)).toEqual({ ok: true });
    expect(checkContractVersion('garbage', served)).toEqual({ ok: true });
    expect(checkContractVersion('experiment.v1/1.9.0', served)).toEqual({
      ok: true,
      contract: { name: 'experiment.v1', version: '1.9.0' },
    });
    expect(checkContractVersion('traffic.v1/1.0.0', served)).toEqual({ ok: true });
    expect(checkContractVersion('experiment.v2alpha/2.0.0-alpha.1', served)).toEqual({
      ok: false,
      requested: { name: 'experiment.v2alpha', version: '2.0.0-alpha.1' },
      servedMajors: ['experiment.v1'],
    });
  });
});

describe('deprecated use', () => {
  it('finds a deprecated field only when the request sets it', () => {
    const uses = findDeprecatedUses([WIDGET_V1_PACKAGE], 'widget.v1.widgets.create', {
      size: 3,
      sizeMm: undefined,
    });
    expect(uses.map((u) => [u.contract, u.deprecation.target])).toEqual([
      ['widget.v1', 'CreateWidgetRequest.size'],
    ]);
    expect(
      findDeprecatedUses([WIDGET_V1_PACKAGE], 'widget.v1.widgets.create', {
        sizeMm: 3,
        size: undefined,
      }),
    ).toEqual([]);
    expect(findDeprecatedUses([WIDGET_V1_PACKAGE], 'widget.v1.widgets.create', null)).toEqual([]);
  });

  it('finds a deprecated subject whatever the payload', () => {
    const uses = findDeprecatedUses([WIDGET_V1_PACKAGE], 'widget.v1.widgets.import', {});
    expect(uses.map((u) => u.deprecation.target)).toEqual(['widget.v1.widgets.import']);
  });

  it('warns about a deprecated field, and refuses a disallowed one unless its override env var is true', () => {
    const [size, colour] = findDeprecatedUses([WIDGET_V1_PACKAGE], 'widget.v1.widgets.create', {
      size: 3,
      colour: 'red',
    });
    expect(isRefused(size, {})).toBe(false);
    expect(colour.overrideEnv).toBe(
      'CONTRACTS_ALLOW_DEPRECATED_WIDGET_V1_CREATEWIDGETREQUEST_COLOUR',
    );
    expect(isRefused(colour, {})).toBe(true);
    expect(isRefused(colour, { [colour.overrideEnv]: 'false' })).toBe(true);
    expect(isRefused(colour, { [colour.overrideEnv]: 'true' })).toBe(false);
  });

  it('announces a deprecation with RFC 9745 Deprecation, RFC 8594 Sunset and a Link', () => {
    const [size] = findDeprecatedUses([WIDGET_V1_PACKAGE], 'widget.v1.widgets.create', { size: 3 });
    expect(deprecationHeaders(size.deprecation, '/docs')).toEqual({
      Deprecation: '@1767225600',
      Sunset: 'Thu, 31 Dec 2026 00:00:00 GMT',
      Link: '</docs>; rel="deprecation"; type="text/html"',
    });
    expect(deprecationHeaders({ target: 'T.f', since: '1.1.0', replacement: 'T.g' })).toEqual({});
  });

  it('reports parentEtag, the deprecated name of livePolicyEtag in experiment.v1 commits', () => {
    const uses = findDeprecatedUses(CONTRACT_PACKAGE_DEFINITIONS, EXPERIMENT_SUBJECTS.commit, {
      name: 'n',
      parentEtag: 'W/"1"',
    });
    expect(uses.map((u) => [u.contract, u.deprecation.target, u.deprecation.replacement])).toEqual([
      ['experiment.v1', 'CommitRequest.parentEtag', 'CommitRequest.livePolicyEtag'],
    ]);
    expect(isRefused(uses[0], {})).toBe(false);
    expect(
      findDeprecatedUses(CONTRACT_PACKAGE_DEFINITIONS, EXPERIMENT_SUBJECTS.commit, {
        name: 'n',
        livePolicyEtag: 'W/"1"',
      }),
    ).toEqual([]);
  });
});
