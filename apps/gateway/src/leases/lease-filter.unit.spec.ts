import { StatusError } from '@rollout/contracts';
import { statusesFromFilter } from './leases.client';

const refusal = (filter: string) => {
  try {
    statusesFromFilter(filter);
  } catch (error) {
    if (!(error instanceof StatusError)) throw error;
    return { message: error.message, violations: error.details };
  }
  throw new Error(`${filter} was read`);
};

describe('listLeases filter (AIP-160 subset)', () => {
  it('reads statuses, bare or quoted, joined by OR', () => {
    expect(statusesFromFilter('status = ACTIVE')).toEqual(['ACTIVE']);
    expect(statusesFromFilter('status=ACTIVE OR status = "PENDING" or status=ERROR')).toEqual([
      'ACTIVE',
      'PENDING',
      'ERROR',
    ]);
  });

  it('refuses anything else, naming the term it could not read', () => {
    const supported = 'filter supports status = PENDING|ACTIVE|TERMINATED|ERROR joined by OR.';
    const cannotRead = (term: string) => [
      {
        '@type': expect.any(String),
        fieldViolations: [{ field: 'filter', description: `cannot read "${term}"` }],
      },
    ];
    expect(refusal('name=x')).toEqual({ message: supported, violations: cannotRead('name=x') });
    expect(refusal('status = SLEEPING').violations).toEqual(cannotRead('status = SLEEPING'));
    expect(refusal('status != ACTIVE').violations).toEqual(cannotRead('status != ACTIVE'));
    expect(refusal('status = ACTIVE OR status = active').violations).toEqual(
      cannotRead('status = active'),
    );
    expect(refusal('status = ACTIVE AND status = ERROR').violations).toEqual(
      cannotRead('status = ACTIVE AND status = ERROR'),
    );
    expect(refusal(' ').violations).toEqual(cannotRead(''));
    expect(refusal('status = "ACTIVE').violations).toEqual(cannotRead('status = "ACTIVE'));
    expect(refusal(`status = ${'A'.repeat(100)}`).violations).toEqual(
      cannotRead(`status = ${'A'.repeat(100)}`.slice(0, 60)),
    );
  });
});
