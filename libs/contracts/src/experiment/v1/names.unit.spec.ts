import { StatusError } from '../../status';
import {
  formatExperimentName,
  formatPolicyKey,
  formatRevisionName,
  parseExperimentName,
  parseKeyParent,
  parsePolicyKey,
  parsePolicyName,
  projectOfName,
  requireExperimentName,
  requireParent,
  requireResourceId,
  requireRevisionName,
} from './names';

describe('requireExperimentName', () => {
  const name = 'projects/acme/locations/global/firewallPolicies/web/experiments/lock';

  it('gives the parts of an experiment name', () => {
    expect(requireExperimentName(name, 'name')).toEqual({
      name,
      policyName: 'projects/acme/locations/global/firewallPolicies/web',
      project: 'acme',
      location: 'global',
      policy: 'web',
      experiment: 'lock',
    });
  });

  it("refuses anything else as INVALID_ARGUMENT on the request's field", () => {
    for (const bad of [
      undefined,
      42,
      'projects/acme/locations/global/firewallPolicies/web',
      `${name}/x`,
    ]) {
      let thrown: unknown;
      try {
        requireExperimentName(bad, 'parent');
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(StatusError);
      expect((thrown as StatusError).toStatus()).toMatchObject({
        status: 'INVALID_ARGUMENT',
        details: [
          expect.objectContaining({
            fieldViolations: [expect.objectContaining({ field: 'parent' })],
          }),
        ],
      });
    }
  });
});

describe('resource names', () => {
  it('formats what it parses', () => {
    const parts = { project: 'acme', location: 'global', policy: 'web', experiment: 'lock' };
    const name = formatExperimentName(parts);
    expect(name).toBe('projects/acme/locations/global/firewallPolicies/web/experiments/lock');
    expect(parseExperimentName(name)).toMatchObject(parts);
    expect(parsePolicyName(parseExperimentName(name)?.policyName)).toMatchObject({
      project: 'acme',
      policy: 'web',
    });
  });

  it('gives undefined, not an error, for a name that is not one (AIP-122 ids only)', () => {
    for (const bad of [undefined, 7, '', 'projects/Acme/locations/global/firewallPolicies/web'])
      expect(parsePolicyName(bad)).toBeUndefined();
    expect(
      parsePolicyName(`projects/acme/locations/global/firewallPolicies/${'a'.repeat(64)}`),
    ).toBeUndefined();
  });

  it('names the field and the expected form when a request holds no valid parent or id', () => {
    expect(() => requireParent('projects/acme', 'parent')).toThrow(
      'parent "projects/acme" is not a valid parent.',
    );
    expect(() => requireResourceId('experimentId', 'Bad_Id')).toThrow(
      'experimentId "Bad_Id" is not a valid resource id.',
    );
    expect(requireResourceId('experimentId', 'good-id')).toBe('good-id');
  });
});

describe('revision names', () => {
  const policyName = 'projects/acme/locations/global/firewallPolicies/web';

  it('formats what it parses: the live policy and the revision id', () => {
    const name = formatRevisionName(policyName, 3);
    expect(name).toBe(`${policyName}/revisions/3`);
    expect(requireRevisionName(name)).toEqual({
      name,
      policyName,
      project: 'acme',
      location: 'global',
      policy: 'web',
      revisionId: '3',
    });
  });

  it('refuses a revision id that is not a number from 1, naming the form', () => {
    for (const id of ['0', 'abc', '01', '-1', '3/x'])
      expect(() => requireRevisionName(`${policyName}/revisions/${id}`, 'name')).toThrow(
        `name "${policyName}/revisions/${id}" is not a valid revision name.`,
      );
  });
});

describe('the project of a name', () => {
  it('reads the project segment of any resource name, whatever id it holds', () => {
    expect(projectOfName('projects/acme/locations/global/firewallPolicies/web')).toBe('acme');
    expect(projectOfName('projects/acme/settings')).toBe('acme');
    expect(projectOfName('projects/acme')).toBe('acme');
    // A gate must see the project a request names even when the name is not valid.
    expect(projectOfName('projects/Other_Team/locations/x')).toBe('Other_Team');
  });

  it('gives undefined for what names no project', () => {
    for (const none of [undefined, 7, '', 'projects/', 'operations/op-1', 'x/projects/acme'])
      expect(projectOfName(none)).toBeUndefined();
  });
});

describe('the dot form of a policy', () => {
  it('formats what it parses', () => {
    const ids = { project: 'acme', location: 'global', policy: 'web' };
    expect(formatPolicyKey(ids)).toBe('acme.global.web');
    expect(parsePolicyKey('acme.global.web')).toEqual(ids);
  });

  it("takes a producer's typo'd ids, as a subject carries them", () => {
    expect(parsePolicyKey('Acme.global.web_typo')).toEqual({
      project: 'Acme',
      location: 'global',
      policy: 'web_typo',
    });
  });

  it('gives undefined for anything but three non-empty tokens', () => {
    for (const bad of [
      undefined,
      7,
      '',
      'acme.global',
      'acme..web',
      'acme.global.web.x',
      'a/b.c.d',
    ])
      expect(parsePolicyKey(bad)).toBeUndefined();
  });

  it('reads a parent of subject tokens, and nothing more', () => {
    expect(parseKeyParent('projects/Acme/locations/global')).toEqual({
      project: 'Acme',
      location: 'global',
    });
    for (const bad of [
      'projects/acme',
      'projects/a.b/locations/global',
      'projects/acme/locations/',
    ])
      expect(parseKeyParent(bad)).toBeUndefined();
  });
});
