import { PolicyRouteError, parsePolicyRoutes, policyFor } from './policy-routes';

describe('policy routes (--policy-map)', () => {
  const routes = parsePolicyRoutes(
    '10.0.0.0/8=internal, 10.1.0.0/16=payments,0.0.0.0/0=edge,2001:db8::/32=v6,2001:db8:1::/48=v6-payments',
  );

  it('places a destination in the live policy of its longest matching prefix', () => {
    expect(policyFor('10.1.2.3', routes)).toBe('payments');
    expect(policyFor('10.2.0.1', routes)).toBe('internal');
    expect(policyFor('198.51.100.7', routes)).toBe('edge');
    expect(policyFor('2001:db8:1::5', routes)).toBe('v6-payments');
    expect(policyFor('2001:db8:2::5', routes)).toBe('v6');
    expect(policyFor('::ffff:10.1.0.1', parsePolicyRoutes('::ffff:10.1.0.0/112=mapped'))).toBe(
      'mapped',
    );
  });

  it('falls back to --policy, or to none, when no route matches', () => {
    const internalOnly = parsePolicyRoutes('10.0.0.0/8=internal');
    expect(policyFor('192.0.2.1', internalOnly, 'edge')).toBe('edge');
    expect(policyFor('192.0.2.1', internalOnly)).toBeUndefined();
    expect(policyFor('2001:db8::1', internalOnly)).toBeUndefined();
  });

  it('names what is wrong with a route', () => {
    expect(() => parsePolicyRoutes('10.0.0.0=web')).toThrow(
      new PolicyRouteError('"10.0.0.0=web" is not <cidr>=<policy id>, e.g. 10.0.0.0/8=web'),
    );
    expect(() => parsePolicyRoutes('10.0.0.300/8=web')).toThrow(/is not an IP address/);
    expect(() => parsePolicyRoutes('10.0.0.0/33=web')).toThrow(/longer than an IPv4 address/);
    expect(() => parsePolicyRoutes('10.0.0.0/8=Web_Policy')).toThrow(/is not a policy id/);
  });
});
