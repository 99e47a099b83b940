import type { ListProjectsResponse } from '@rollout/contracts';
import type { Principal } from '../api/client';

export interface ProjectChoice {
  projectId: string;
  /** "acme (3 policies)", or the bare id when the count is unknown. */
  label: string;
}

/**
 * The projects to pick from: the gateway's list (those with policies the token may see), else
 * the token's own projects. A token for all projects may also name one not listed (a new one).
 */
export function projectChoices(
  listed: ListProjectsResponse | undefined,
  principal: Pick<Principal, 'projects' | 'allProjects'>,
): { choices: ProjectChoice[]; mayNameOther: boolean } {
  const choices = listed
    ? listed.projects.map((p) => ({
        projectId: p.projectId,
        label: `${p.projectId} (${p.policyCount} polic${p.policyCount === 1 ? 'y' : 'ies'})`,
      }))
    : principal.projects.map((projectId) => ({ projectId, label: projectId }));
  return { choices, mayNameOther: principal.allProjects };
}
