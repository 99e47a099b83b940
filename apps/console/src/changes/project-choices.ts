import type { ListProjectsResponse } from '@rollout/contracts';
import type { Principal } from '../api/client';

export interface ProjectChoice {
  projectId: string;
  /** "acme (3 policies)", or the bare id when the count is unknown. */
  label: string;
}

/** The gateway's list, else the token's own projects; a token for all projects may also name an unlisted (new) one. */
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
