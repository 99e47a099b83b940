import type { FirewallPolicy } from '@rollout/contracts';
import { useEffect, useState } from 'preact/hooks';
import { messageOf } from '../api/errors';
import { Pager, usePageTokens } from '../components/pager';
import { ErrorMessage, formatTime } from '../components/status';
import { useSession } from '../context';
import { routeHref } from '../router';
import { CreatePolicy } from './create-policy';

const PAGE_SIZE = 20;

interface PoliciesProps {
  project?: string;
  location: string;
}

/** Choose a project and location, then list its live policies a page at a time. */
export function PoliciesPage({ project, location }: PoliciesProps) {
  const { principal } = useSession();
  const chosenProject = project ?? (principal.allProjects ? undefined : principal.projects[0]);
  return (
    <>
      <h1>Policies</h1>
      <ProjectChooser project={chosenProject} location={location} />
      {chosenProject && (
        <PolicyList
          key={`${chosenProject}/${location}`}
          project={chosenProject}
          location={location}
        />
      )}
    </>
  );
}

function ProjectChooser({ project, location }: { project?: string; location: string }) {
  const { principal } = useSession();
  const [chosen, setChosen] = useState(project ?? '');
  const [where, setWhere] = useState(location);
  const go = (event: Event) => {
    event.preventDefault();
    if (chosen.trim())
      window.location.hash = routeHref({
        page: 'policies',
        project: chosen.trim(),
        location: where.trim() || 'global',
      });
  };
  return (
    <form class="grid chooser" onSubmit={go} aria-label="Project and location">
      <label>
        Project
        {principal.allProjects ? (
          <input
            name="project"
            value={chosen}
            required
            onInput={(event) => setChosen(event.currentTarget.value)}
          />
        ) : (
          <select
            name="project"
            value={chosen}
            onChange={(event) => setChosen(event.currentTarget.value)}
          >
            {principal.projects.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        )}
      </label>
      <label>
        Location
        <input
          name="location"
          value={where}
          onInput={(event) => setWhere(event.currentTarget.value)}
        />
      </label>
      <div>
        <button type="submit">Show policies</button>
      </div>
    </form>
  );
}

function PolicyList({ project, location }: { project: string; location: string }) {
  const { api, canEdit } = useSession();
  const pages = usePageTokens();
  const [page, setPage] = useState<{ policies: FirewallPolicy[]; next?: string }>();
  const [error, setError] = useState<string>();
  const [reload, setReload] = useState(0);

  useEffect(() => {
    let live = true;
    setError(undefined);
    api.listPolicies(project, location, PAGE_SIZE, pages.current).then(
      (answer) =>
        live && setPage({ policies: answer.firewallPolicies, next: answer.nextPageToken }),
      (caught: unknown) => live && setError(messageOf(caught)),
    );
    return () => void (live = false);
  }, [api, project, location, pages.current, reload]);

  const idOf = (policy: FirewallPolicy) => policy.name.split('/').pop() ?? policy.name;
  return (
    <section aria-labelledby="policy-list-title">
      <h2 id="policy-list-title">
        Live policies of {project} in {location}
      </h2>
      <ErrorMessage message={error} />
      {page && (
        <div class="table-scroll" tabIndex={0} role="region" aria-label="Live policies">
          <table class="striped">
            <thead>
              <tr>
                <th scope="col">Policy</th>
                <th scope="col">Display name</th>
                <th scope="col">Rules</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {page.policies.length === 0 && (
                <tr>
                  <td colSpan={4}>No policies here yet.</td>
                </tr>
              )}
              {page.policies.map((policy) => (
                <tr key={policy.name}>
                  <td>
                    <a
                      href={routeHref({ page: 'policy', project, location, policy: idOf(policy) })}
                    >
                      {idOf(policy)}
                    </a>
                  </td>
                  <td>{policy.displayName ?? ''}</td>
                  <td>{policy.rules.length}</td>
                  <td>{formatTime(policy.updateTime)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager label="Pages of policies" pages={pages} next={page?.next} />
      {canEdit && (
        <CreatePolicy
          project={project}
          location={location}
          onCreated={() => setReload(reload + 1)}
        />
      )}
    </section>
  );
}
