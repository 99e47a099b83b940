export type Role = 'viewer' | 'editor' | 'admin';

const RANK: Record<Role, number> = { viewer: 1, editor: 2, admin: 3 };

export interface Principal {
  /** Recorded as the actor of every change. */
  name: string;
  roles: Role[];
  projects: '*' | string[];
}

export function hasRole(principal: Principal, needed: Role): boolean {
  return principal.roles.some((role) => RANK[role] >= RANK[needed]);
}

export function canSeeProject(principal: Principal, project: string): boolean {
  return principal.projects === '*' || principal.projects.includes(project);
}
