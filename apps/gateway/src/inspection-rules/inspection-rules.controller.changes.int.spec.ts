import { eventually } from '@rollout/testing/kit';
import { Rule, inspectionRulesSystem } from '../../test/inspection-rules-system';
import { readRuleChanges } from '../../test/rule-changes-table';

describe('inspection rule changes through the gateway', () => {
  const system = inspectionRulesSystem();

  it('records who changed which rule, under which request id, and logs both', async () => {
    const send = (
      method: string,
      path: string,
      requestId: string,
      body?: unknown,
      contentType?: string,
    ) => system.call(method, path, body, contentType, undefined, { 'x-request-id': requestId });
    const created = await send('POST', '/v1/inspection_rules', 'req-audit-create', {
      actions: [{ op: 'log', args: ['audited'] }],
    });
    expect(created.status).toBe(201);
    const uuid = (created.body as Rule).uuid;
    expect(
      (
        await send('PATCH', `/v1/inspection_rules/${uuid}`, 'req-audit-patch', [
          { op: 'replace', path: '/priority', value: 7 },
        ])
      ).status,
    ).toBe(200);
    // A refused change records nothing.
    expect(
      (
        await send('PATCH', `/v1/inspection_rules/${uuid}`, 'req-audit-refused', [
          { op: 'replace', path: '/priority', value: 'high' },
        ])
      ).status,
    ).toBe(400);
    expect((await send('DELETE', `/v1/inspection_rules/${uuid}`, 'req-audit-delete')).status).toBe(
      204,
    );
    const imported = await send(
      'POST',
      '/v1/inspection_rules:import',
      'req-audit-import',
      '- description: imported\n  actions: [{op: log, args: [i]}]\n',
      'application/yaml',
    );
    expect(imported.status).toBe(201);
    const importedUuid = (imported.body.inspection_rules as Rule[])[0].uuid;
    expect((await send('DELETE', '/v1/inspection_rules', 'req-audit-delete-all')).status).toBe(204);
    // An HTTP client cannot claim to be someone else.
    expect(
      (
        await send('POST', '/v1/inspection_rules', 'req-audit-forged', {
          actor: 'root',
          actions: [{ op: 'log', args: ['x'] }],
        })
      ).status,
    ).toBe(400);

    expect(await readRuleChanges(system.schema, uuid)).toEqual([
      { change: 'created', actor: 'admin', request_id: 'req-audit-create' },
      { change: 'updated', actor: 'admin', request_id: 'req-audit-patch' },
      { change: 'deleted', actor: 'admin', request_id: 'req-audit-delete' },
    ]);
    expect(await readRuleChanges(system.schema, importedUuid)).toEqual([
      { change: 'imported', actor: 'admin', request_id: 'req-audit-import' },
      { change: 'deleted', actor: 'admin', request_id: 'req-audit-delete-all' },
    ]);

    // Each change is logged with its actor and the request id.
    const lines = () =>
      system
        .logs()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map(
          (line) =>
            JSON.parse(line) as {
              reqId?: string;
              actor?: string;
              change?: string;
              rules?: string[];
            },
        );
    for (const [requestId, change, rule] of [
      ['req-audit-create', 'created', uuid],
      ['req-audit-patch', 'updated', uuid],
      ['req-audit-delete', 'deleted', uuid],
      ['req-audit-import', 'imported', importedUuid],
      ['req-audit-delete-all', 'deleted', importedUuid],
    ]) {
      await eventually(
        async () => (lines().some((line) => line.reqId === requestId) ? true : undefined),
        { what: `the log line of ${requestId}` },
      );
      expect(
        lines().find((line) => line.reqId === requestId && line.change === change),
      ).toMatchObject({ actor: 'admin', change, rules: expect.arrayContaining([rule]) });
    }
  });
});
