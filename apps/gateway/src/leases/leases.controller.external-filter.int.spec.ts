import { hoursFromNow, sample } from '../../test/enforcement-system';
import {
  POLICY_TOKEN,
  TIMEOUT_MS,
  externalServiceSystem,
  lease,
} from '../../test/enforcement-external-service';

/**
 * The ExternalService filter against a real HTTP server (see enforcement-external-service.ts),
 * through the gateway: every outcome, then the server closed for "connection refused". Once with
 * allow_on_error false, once with true.
 */

/** The HTTP outcomes, what a user sees with allow_on_error false, and whether true lets it through. */
const DENIALS: Array<[string, string, string]> = [
  [
    '403 with a message',
    'ext-403-message',
    'Your project is limited to reserving 1 physical host.',
  ],
  ['403 with an error', 'ext-403-error', 'Budget exhausted for this quarter.'],
  [
    '403 without a body',
    'ext-403-empty',
    'External service enforcement filter denied the request.',
  ],
];
const ERRORS: Array<[string, string, string]> = [
  ['500', 'ext-500', 'External service answered check-create with HTTP 500.'],
  ['a redirect', 'ext-redirect', 'External service answered check-create with HTTP 302.'],
  [
    'a timeout',
    'ext-timeout',
    `External service call to check-create failed: no answer within ${TIMEOUT_MS} ms.`,
  ],
];
const REFUSED = 'External service call to check-create failed: connection refused.';

describe.each([false, true])('ExternalService with allow_on_error: %s', (allowOnError) => {
  const system = externalServiceSystem(allowOnError);

  it('204 allows', async () => {
    const created = await system.create('ext-204');
    expect(created.status).toBe(200);
    expect(created.body.status).toBe('PENDING');
  });

  it.each(DENIALS)(
    '%s denies with that message, whatever allow_on_error says',
    async (_, project, message) => {
      const refused = await system.create(project);
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatchObject({ status: 'PERMISSION_DENIED', message });
      expect(refused.body.error.details[0]).toMatchObject({
        reason: 'ENFORCEMENT_DENIED',
        metadata: { filter: 'ExternalService' },
      });
      expect(
        (await system.call('GET', `/v1/projects/${project}/leases/${refused.id}`)).body,
      ).toMatchObject({ status: 'ERROR', statusReason: message });
    },
  );

  it.each(ERRORS)(
    `%s is an error: ${allowOnError ? 'allowed and counted as fail-open' : 'denied'}`,
    async (_, project, message) => {
      const before = sample(await system.metrics(), 'enforcement_fail_open_total', {
        hook: 'check_create',
        filter: 'ExternalService',
      });
      const answer = await system.create(project);
      const decisions = (
        await system.call('GET', `/v1/projects/${project}/leases/${answer.id}/decisions`)
      ).body.decisions;
      const after = sample(await system.metrics(), 'enforcement_fail_open_total', {
        hook: 'check_create',
        filter: 'ExternalService',
      });
      if (allowOnError) {
        expect(answer.status).toBe(200);
        expect(decisions[0].steps[1]).toEqual({
          filter: 'ExternalService',
          mode: 'ENFORCE',
          result: 'FAIL_OPEN',
          message,
        });
        expect(after).toBe(before + 1);
      } else {
        // A failure, not a policy denial: its own reason; the status is status_on_error's default.
        expect(answer.status).toBe(403);
        expect(answer.body.error).toMatchObject({ status: 'PERMISSION_DENIED', message });
        expect(answer.body.error.details[0]).toMatchObject({
          reason: 'ENFORCEMENT_FILTER_FAILED',
          metadata: { filter: 'ExternalService' },
        });
        expect(decisions[0]).toMatchObject({
          result: 'DENIED',
          filter: 'ExternalService',
          message,
        });
        expect(decisions[0].steps[1]).toEqual({
          filter: 'ExternalService',
          mode: 'ENFORCE',
          result: 'ERROR',
          message,
        });
        expect(after).toBe(before);
      }
    },
  );

  it('sends Blazar payloads: snake_case, UTC dates with Z, the token, the id users see only where Blazar sends its stored lease; check-update and on-end too', async () => {
    const body = lease();
    const created = await system.call('POST', '/v1/projects/ext-204/leases?leaseId=wire', body);
    expect(created.status).toBe(200);
    const checkCreate = system.policy.received.at(-1)!;
    expect(checkCreate.path).toBe('/v1/check-create');
    expect(checkCreate.headers['x-auth-token']).toBe(POLICY_TOKEN);
    expect(checkCreate.headers['x-request-id']).toEqual(expect.any(String));
    expect(checkCreate.body).toEqual({
      // No auth_url configured: still a string, as Blazar always sends one.
      context: { user_id: 'alice', project_id: 'ext-204', auth_url: '', region_name: 'RegionOne' },
      lease: {
        name: 'nightly',
        start_date: new Date(body.startDate).toISOString(),
        end_date: new Date(body.endDate).toISOString(),
        reservations: [{ resource_type: 'virtual:floatingip', amount: 1, network_id: 'ext-net' }],
      },
    });
    const newEnd = hoursFromNow(4);
    expect(
      (
        await system.call('PATCH', '/v1/projects/ext-204/leases/wire', {
          name: 'nightly-2',
          endDate: newEnd,
        })
      ).status,
    ).toBe(200);
    const update = system.policy.received.at(-1)!;
    expect(update.path).toBe('/v1/check-update');
    expect(Object.keys(update.body)).toEqual(['context', 'current_lease', 'lease']);
    expect(update.body.context).toMatchObject({ auth_url: '' });
    expect(update.body.current_lease).toMatchObject({
      id: 'wire',
      name: 'nightly',
      end_date: new Date(body.endDate).toISOString(),
    });
    expect(update.body.lease).toEqual(
      expect.objectContaining({ name: 'nightly-2', end_date: new Date(newEnd).toISOString() }),
    );
    expect(update.body.lease).not.toHaveProperty('id');
    expect((await system.call('POST', '/v1/projects/ext-204/leases/wire:end')).status).toBe(200);
    const onEnd = system.policy.received.at(-1)!;
    expect(onEnd.path).toBe('/v1/on-end');
    expect(onEnd.body.lease).toMatchObject({ id: 'wire', name: 'nightly-2' });
    expect(onEnd.body.context).toMatchObject({ auth_url: '' });
    expect(system.policy.received.filter((r) => r.path === '/v1/on-end')).toHaveLength(1);
  });

  it('runs no filter and calls no external service for an update that only renames, or sends back what the lease holds (as Blazar)', async () => {
    const body = lease();
    expect(
      (await system.call('POST', '/v1/projects/ext-204/leases?leaseId=rename-only', body)).status,
    ).toBe(200);
    const calls = system.policy.received.length;
    const renamed = await system.call('PATCH', '/v1/projects/ext-204/leases/rename-only', {
      name: 'renamed',
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body.name).toBe('renamed');
    const same = await system.call('PATCH', '/v1/projects/ext-204/leases/rename-only', {
      startDate: body.startDate,
      endDate: body.endDate,
      reservations: body.reservations,
    });
    expect(same.status).toBe(200);
    expect(system.policy.received.length).toBe(calls);
    const decisions = (
      await system.call('GET', '/v1/projects/ext-204/leases/rename-only/decisions')
    ).body.decisions;
    expect(decisions.map((d: { hook: string }) => d.hook)).toEqual(['CHECK_CREATE']);
    expect(
      (
        await system.call('PATCH', '/v1/projects/ext-204/leases/rename-only', {
          endDate: hoursFromNow(5),
        })
      ).status,
    ).toBe(200);
    expect(system.policy.received.at(-1)!.path).toBe('/v1/check-update');
  });

  it('records an on_end the service fails, and never lets it block the end', async () => {
    const created = await system.create('ext-on-end-fails');
    expect(created.status).toBe(200);
    const ended = await system.call(
      'POST',
      `/v1/projects/ext-on-end-fails/leases/${created.id}:end`,
    );
    expect(ended.status).toBe(200);
    expect(ended.body.status).toBe('TERMINATED');
    const decisions = (
      await system.call('GET', `/v1/projects/ext-on-end-fails/leases/${created.id}/decisions`)
    ).body.decisions;
    expect(decisions[1]).toMatchObject({ hook: 'ON_END', result: 'NOTIFIED' });
    expect(decisions[1].steps).toContainEqual({
      filter: 'ExternalService',
      mode: 'ENFORCE',
      result: 'ERROR',
      message: 'External service answered on-end with HTTP 500.',
    });
  });

  it(`connection refused is an error: ${allowOnError ? 'allowed and counted as fail-open' : 'denied'}`, async () => {
    await system.policy.close();
    const answer = await system.create('ext-refused');
    const decisions = (
      await system.call('GET', `/v1/projects/ext-refused/leases/${answer.id}/decisions`)
    ).body.decisions;
    if (allowOnError) {
      expect(answer.status).toBe(200);
      expect(decisions[0].steps[1]).toEqual({
        filter: 'ExternalService',
        mode: 'ENFORCE',
        result: 'FAIL_OPEN',
        message: REFUSED,
      });
    } else {
      expect(answer.status).toBe(403);
      expect(answer.body.error.message).toBe(REFUSED);
    }
  });
});
