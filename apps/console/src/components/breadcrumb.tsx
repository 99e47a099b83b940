import type { PolicyRef } from '../api/client';
import { routeHref } from '../router';

/** Project › policy › the page's own name. */
export function Breadcrumb({ policyRef, last }: { policyRef: PolicyRef; last: string }) {
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
          <a href={routeHref({ page: 'policy', ...policyRef })}>{policyRef.policy}</a>
        </li>
        <li>{last}</li>
      </ul>
    </nav>
  );
}
