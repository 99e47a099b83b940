import { escapedName } from './api/client';

/** In the URL's fragment, so the gateway serves one index.html and back and bookmarks work; resource ids only. */
export type Route =
  | { page: 'policies'; project?: string; location: string }
  | { page: 'policy'; project: string; location: string; policy: string }
  | { page: 'new-experiment'; project: string; location: string; policy: string }
  | { page: 'experiment'; project: string; location: string; policy: string; experiment: string }
  | { page: 'report'; project: string; location: string; policy: string; experiment: string }
  | { page: 'history'; project: string; location: string; policy: string }
  | { page: 'revisions'; project: string; location: string; policy: string }
  | {
      page: 'experiment-history';
      project: string;
      location: string;
      policy: string;
      experiment: string;
    };

export const DEFAULT_LOCATION = 'global';

const decode = (part: string) => {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
};

/** Anything unknown is the policies page. */
export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decode);
  const [projects, project, locations, location, policies, policy, fourth, experiment, fifth] =
    parts;
  if (projects !== 'projects' || !project) return { page: 'policies', location: DEFAULT_LOCATION };
  if (locations !== 'locations' || !location || policies !== 'firewallPolicies')
    return { page: 'policies', project, location: location ?? DEFAULT_LOCATION };
  if (!policy) return { page: 'policies', project, location };
  const ref = { project, location, policy };
  if (fourth === 'history') return { page: 'history', ...ref };
  if (fourth === 'revisions') return { page: 'revisions', ...ref };
  if (fourth === 'newExperiment') return { page: 'new-experiment', ...ref };
  if (fourth === 'experiments' && experiment) {
    if (fifth === 'report') return { page: 'report', ...ref, experiment };
    if (fifth === 'history') return { page: 'experiment-history', ...ref, experiment };
    return { page: 'experiment', ...ref, experiment };
  }
  return { page: 'policy', ...ref };
}

export function routeHref(route: Route): string {
  if (route.page === 'policies')
    return route.project ? `#/${escapedName.policies(route.project, route.location)}` : '#/';
  const policy = `#/${escapedName.policy(route)}`;
  switch (route.page) {
    case 'policy':
      return policy;
    case 'history':
      return `${policy}/history`;
    case 'revisions':
      return `${policy}/revisions`;
    case 'new-experiment':
      return `${policy}/newExperiment`;
    case 'experiment':
      return `#/${escapedName.experiment(route)}`;
    case 'experiment-history':
      return `#/${escapedName.experiment(route)}/history`;
    case 'report':
      return `#/${escapedName.experiment(route)}/report`;
  }
}
