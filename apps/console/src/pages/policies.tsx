import type { FirewallPolicy } from '@rollout/contracts';
import { useEffect, useState } from 'preact/hooks';
import { messageOf } from '../api/errors';
import { Pager, usePageTokens } from '../components/pager';
import { ErrorMessage, formatTime } from '../components/status';
import { useSession } from '../context';
import { routeHref } from '../router';
import { listProjects } from '../api/change-api';
import { DeadLettersPanel } from '../changes/dead-letters-panel';
import { projectChoices } from '../changes/project-choices';
import { useLoaded } from '../changes/use-loaded';
import { CreatePolicy } from './create-policy';

const PAGE_SIZE = 20;

interface PoliciesProps {
  project?: string;
  location: string;
}

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

/** Stands for "a project not in the list" in the picker. */
const OTHER = ' other';

function ProjectChooser({ project, location }: { project?: string; location: string }) {
  const { api, principal } = useSession();
  const listed = useLoaded(() => listProjects(api), [api]);
  const { choices, mayNameOther } = projectChoices(
    listed.state === 'ready' ? listed.value : undefined,
    principal,
  );
  const [picked, setPicked] = useState(project ?? '');
  const [typed, setTyped] = useState(project ?? '');
  const [where, setWhere] = useState(location);
  // The address is the truth: back, forward or a pasted link move the picker with it.
  useEffect(() => {
    setPicked(project ?? '');
    setTyped(project ?? '');
    setWhere(location);
  }, [project, location]);
  // A project named before but not listed (a new one) is "another project", typed.
  const selected = choices.some((choice) => choice.projectId === picked)
    ? picked
    : picked === OTHER || (picked && mayNameOther)
      ? OTHER
      : (choices[0]?.projectId ?? '');
  const typing = choices.length === 0 || selected === OTHER;
  const chosen = typing ? typed : selected;
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
      {choices.length > 0 && (
        <label>
          Project
          <select
            name="project"
            value={selected}
            onChange={(event) => setPicked(event.currentTarget.value)}
          >
            {choices.map((choice) => (
              <option key={choice.projectId} value={choice.projectId}>
                {choice.label}
              </option>
            ))}
            {mayNameOther && <option value={OTHER}>Another project…</option>}
          </select>
        </label>
      )}
      {typing && (
        <label>
          {choices.length ? 'Project id' : 'Project'}
          <input
            name="project-id"
            value={typed}
            required
            onInput={(event) => setTyped(event.currentTarget.value)}
          />
        </label>
      )}
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
      <DeadLettersPanel project={project} location={location} />
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
