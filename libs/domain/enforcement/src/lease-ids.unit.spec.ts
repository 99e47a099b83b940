import { StatusError } from '@rollout/contracts';
import {
  adapterLeaseId,
  blazarLeaseId,
  checkActor,
  checkProject,
  isLookupId,
  newLeaseId,
} from './lease-ids';

const fieldOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(StatusError);
    const status = (error as StatusError).toStatus();
    expect(status.status).toBe('INVALID_ARGUMENT');
    return (status.details[0] as { fieldViolations: Array<{ field: string }> }).fieldViolations[0]
      .field;
  }
  return undefined;
};

describe('lease ids and projects', () => {
  it('accepts project ids of letters, digits and . _ @ : -, and refuses anything else as an invalid project', () => {
    expect(checkProject('team-a.dev@x:1')).toBe('team-a.dev@x:1');
    expect(fieldOf(() => checkProject('-leading'))).toBe('project');
    expect(fieldOf(() => checkProject('a b'))).toBe('project');
    expect(fieldOf(() => checkProject(42))).toBe('project');
  });

  it('requires an actor of at most 255 characters', () => {
    expect(checkActor('alice')).toBe('alice');
    expect(fieldOf(() => checkActor(''))).toBe('actor');
    expect(fieldOf(() => checkActor('a'.repeat(256)))).toBe('actor');
  });

  it('given no lease id, generates one; given an AIP-122 id, keeps it; given another, refuses it', () => {
    expect(newLeaseId(undefined, () => 'generated')).toBe('generated');
    expect(newLeaseId('', () => 'generated')).toBe('generated');
    expect(newLeaseId('gpu-week-1', () => 'generated')).toBe('gpu-week-1');
    expect(fieldOf(() => newLeaseId('Upper', () => 'generated'))).toBe('leaseId');
    expect(fieldOf(() => newLeaseId('ends-with-', () => 'generated'))).toBe('leaseId');
  });

  it('looks up generated (UUID) and chosen ids alike, and nothing that no lease can have', () => {
    expect(isLookupId('0b8f7c3e-1d2a-4c5b-9e6f-7a8b9c0d1e2f')).toBe(true);
    expect(isLookupId('gpu-week-1')).toBe(true);
    expect(isLookupId('../etc')).toBe(false);
    expect(isLookupId(7)).toBe(false);
  });

  it('keys a Blazar lease for adapters by its name, else its id, and a lease of the API by its uid', () => {
    expect(blazarLeaseId('lease-a', 'id-1', 'req-1')).toBe('blazar:lease-a');
    expect(blazarLeaseId(undefined, 'id-1', 'req-1')).toBe('blazar:id-1');
    expect(
      adapterLeaseId({ origin: 'BLAZAR', uid: 'u-1', blazarName: null, blazarId: 'id-1' }),
    ).toBe('blazar:id-1');
    expect(adapterLeaseId({ origin: 'API', uid: 'u-1', blazarName: null, blazarId: null })).toBe(
      'u-1',
    );
  });
});
