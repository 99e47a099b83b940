import { BUILT_INS, TestSystem, callIronic, startSystem } from '../../test/inspection-rules-system';

describe('given rules written for Ironic, when they are saved, read back and run through the gateway, then they are checked and kept as Ironic checks and keeps them', () => {
  let apps: TestSystem;

  beforeAll(async () => {
    apps = await startSystem(BUILT_INS, {});
  }, 60_000);

  afterAll(async () => {
    await apps?.close();
  }, 30_000);

  const ironic = (method: string, path: string, body?: unknown) =>
    callIronic(apps.base, method, path, body);
  const log = [{ op: 'log', args: ['x'] }];

  it('refuses a comparison without values on create and on patch with 400 naming values, and keeps the rule', async () => {
    for (const condition of [
      { op: 'eq', args: [] },
      { op: 'eq', args: {} },
      { op: 'lt', args: { force_strings: true } },
    ]) {
      const refused = await ironic('POST', '/v1/inspection_rules', {
        conditions: [condition],
        actions: log,
      });
      expect(refused.status).toBe(400);
      expect(refused.fault?.faultstring).toMatch(/conditions\[0\]: .* "values"/);
    }
    const { body: rule } = await ironic('POST', '/v1/inspection_rules', {
      conditions: [{ op: 'eq', args: { values: [1, 1] } }],
      actions: log,
    });
    const patched = await ironic('PATCH', `/v1/inspection_rules/${rule.uuid}`, [
      { op: 'replace', path: '/conditions/0/args', value: { force_strings: true } },
    ]);
    expect(patched.status).toBe(400);
    expect(patched.fault?.faultstring).toMatch(/eq is missing its "values" argument/);
    expect((await ironic('GET', `/v1/inspection_rules/${rule.uuid}`)).body.conditions).toEqual([
      { op: 'eq', args: { values: [1, 1] } },
    ]);
  });
});
