import { projectChoices } from './project-choices';

describe('the project picker', () => {
  it('lists the gateway’s projects with their policy counts, else the token’s own', () => {
    expect(
      projectChoices(
        {
          projects: [
            { projectId: 'acme', policyCount: 1 },
            { projectId: 'beta', policyCount: 3 },
          ],
        },
        { projects: [], allProjects: true },
      ),
    ).toEqual({
      choices: [
        { projectId: 'acme', label: 'acme (1 policy)' },
        { projectId: 'beta', label: 'beta (3 policies)' },
      ],
      mayNameOther: true,
    });
    expect(projectChoices(undefined, { projects: ['acme'], allProjects: false })).toEqual({
      choices: [{ projectId: 'acme', label: 'acme' }],
      mayNameOther: false,
    });
  });
});
