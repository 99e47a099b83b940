import type { PolicyRef } from '../api/client';
import { routeHref } from '../router';

/** A page between the policy and this one (the experiment, on its report). */
export interface Crumb {
  text: string;
  href: string;
}

export function Breadcrumb({
  policyRef,
  through = [],
  last,
}: {
  policyRef: PolicyRef;
  through?: Crumb[];
  last?: string;
}) {
  return (
    <nav aria-label="Breadcrumb">
      <ul>
        <li>
          <a
            href={routeHref({
              page: 'policies',
              project: policyRef.project,
              location: policyRef.location,
            })}
          >
            {policyRef.project}
          </a>
        </li>
        <li>
          {last === undefined ? (
            policyRef.policy
          ) : (
            <a href={routeHref({ page: 'policy', ...policyRef })}>{policyRef.policy}</a>
          )}
        </li>
        {through.map((crumb) => (
          <li key={crumb.href}>
            <a href={crumb.href}>{crumb.text}</a>
          </li>
        ))}
        {last !== undefined && <li>{last}</li>}
      </ul>
    </nav>
  );
}
