import {
  BUILT_IN_FILTERS_CHAIN,
  enforcementSystem,
  host,
  lease,
  leases,
  sample,
} from '../../test/enforcement-system';

/**
 * MaxActiveLeases counting under concurrency, listing, and the decisions' metrics, through the
 * gateway under the built-in filters.
 */
const system = enforcementSystem(BUILT_IN_FILTERS_CHAIN);

describe('MaxActiveLeases under concurrency', () => {
  it('admits exactly 5 of 20 concurrent creates in one project, refuses the other 15, and frees a slot when one ends', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        system.call(
          'POST',
          `${leases('busy')}?leaseId=race-${i}`,
          lease(1, { reservations: [host(1)] }),
        ),
      ),
    );
    const admitted = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 403);
    expect(admitted).toHaveLength(5);
    expect(refused).toHaveLength(15);
    for (const r of refused) {
      expect(r.body.error.message).toBe(
        'Project busy already has 5 pending or active leases; the maximum is 5.',
      );
      expect(r.body.error.details[0].metadata.filter).toBe('MaxActiveLeases');
    }
    const live = await system.call('GET', `${leases('busy')}?status=PENDING,ACTIVE&pageSize=100`);
    expect(live.body.leases).toHaveLength(5);
    const errors = await system.call(
      'GET',
      `${leases('busy')}?filter=${encodeURIComponent('status = ERROR')}&pageSize=100`,
    );
    expect(errors.body.leases).toHaveLength(15);

    expect((await system.call('POST', `${leases('busy')}?leaseId=one-more`, lease())).status).toBe(
      403,
    );
    const ended = await system.call('POST', `${leases('busy')}/${admitted[0].body.id}:end`);
    expect(ended.body.status).toBe('TERMINATED');
    expect(
      (await system.call('POST', `${leases('busy')}?leaseId=now-it-fits`, lease())).status,
    ).toBe(200);
  });

  it('keeps per-project overrides', async () => {
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        system.call('POST', `${leases('roomy')}?leaseId=r-${i}`, lease()),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(200));
  });
});

describe('listing', () => {
  it('pages through a project by id, filtered by status', async () => {
    for (const id of ['a-1', 'a-2', 'a-3'])
      await system.call('POST', `${leases('pages')}?leaseId=${id}`, lease());
    await system.call('POST', `${leases('pages')}?leaseId=a-4`, lease(99));
    const first = await system.call('GET', `${leases('pages')}?status=PENDING&pageSize=2`);
    expect(first.body.leases.map((l: { id: string }) => l.id)).toEqual(['a-1', 'a-2']);
    const second = await system.call(
      'GET',
      `${leases('pages')}?status=PENDING&pageSize=2&pageToken=${first.body.nextPageToken}`,
    );
    expect(second.body.leases.map((l: { id: string }) => l.id)).toEqual(['a-3']);
    expect(second.body.nextPageToken).toBeUndefined();
    expect(
      (await system.call('GET', `${leases('pages')}?status=ERROR`)).body.leases.map(
        (l: { id: string }) => l.id,
      ),
    ).toEqual(['a-4']);
    expect(
      (await system.call('GET', `${leases('pages')}?pageToken=${first.body.nextPageToken}`)).status,
    ).toBe(400);
    // Tamper-evident: the service's own token without the gateway's signature, or with one
    // character changed, is refused before it reaches the service.
    const token: string = first.body.nextPageToken;
    const inner = token.slice(0, token.lastIndexOf('.'));
    const flipped = `${inner.slice(0, -1)}${inner.endsWith('A') ? 'B' : 'A'}${token.slice(token.lastIndexOf('.'))}`;
    for (const forged of [inner, flipped]) {
      const refused = await system.call(
        'GET',
        `${leases('pages')}?status=PENDING&pageSize=2&pageToken=${forged}`,
      );
      expect(refused.status).toBe(400);
      expect(refused.body.error.message).toBe('pageToken is not a token this API issued.');
    }
    expect((await system.call('GET', `${leases('pages')}?status=SLEEPING`)).status).toBe(400);
    expect((await system.call('GET', `${leases('pages')}?filter=name%3Dx`)).status).toBe(400);
  });

  it('counts every decision in the metrics by hook, filter and result', async () => {
    const metrics = await system.metrics();
    expect(
      sample(metrics, 'enforcement_decisions_total', {
        hook: 'check_create',
        filter: 'MaxLeaseDuration',
        result: 'deny',
      }),
    ).toBeGreaterThan(0);
    expect(
      sample(metrics, 'enforcement_decisions_total', {
        hook: 'check_create',
        filter: 'MaxActiveLeases',
        result: 'deny',
      }),
    ).toBeGreaterThanOrEqual(15);
    expect(
      sample(metrics, 'enforcement_chain_decisions_total', { hook: 'on_end', result: 'notified' }),
    ).toBeGreaterThan(0);
  });
});
