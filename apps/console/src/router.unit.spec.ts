import { Route, parseRoute, routeHref } from './router';

describe('console routes', () => {
  const routes: Route[] = [
    { page: 'policies', location: 'global' },
    { page: 'policies', project: 'acme', location: 'europe-west1' },
    { page: 'policy', project: 'acme', location: 'global', policy: 'edge' },
    { page: 'history', project: 'acme', location: 'global', policy: 'edge' },
    { page: 'revisions', project: 'acme', location: 'global', policy: 'edge' },
    {
      page: 'experiment-history',
      project: 'acme',
      location: 'global',
      policy: 'edge',
      experiment: 'block-ssh',
    },
    { page: 'new-experiment', project: 'acme', location: 'global', policy: 'edge' },
    {
      page: 'experiment',
      project: 'acme',
      location: 'global',
      policy: 'edge',
      experiment: 'block-ssh',
    },
    {
      page: 'report',
      project: 'a b/c',
      location: 'global',
      policy: 'edge',
      experiment: 'block-ssh',
    },
  ];

  it.each(routes)('reads back the fragment it writes: %o', (route) => {
    expect(parseRoute(routeHref(route))).toEqual(route);
  });

  it('takes an unknown or broken fragment for the policies page', () => {
    expect(parseRoute('#/nowhere/at/all')).toEqual({ page: 'policies', location: 'global' });
    expect(parseRoute('#/projects/%E0%A4%A/locations')).toEqual({
      page: 'policies',
      project: '%E0%A4%A',
      location: 'global',
    });
  });
});
