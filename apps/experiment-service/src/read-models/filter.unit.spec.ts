import { StatusError } from '@rollout/contracts';
import { parseExperimentFilter } from './filter';

const refusal = (filter: string) => {
  try {
    parseExperimentFilter(filter);
  } catch (error) {
    if (!(error instanceof StatusError)) throw error;
    return { message: error.message, violations: error.details };
  }
  throw new Error(`${filter} was read`);
};

describe('listExperiments filter (AIP-160 subset)', () => {
  it('reads state conditions in either spelling, bare or quoted, joined by AND', () => {
    expect(parseExperimentFilter(undefined)).toEqual([]);
    expect(parseExperimentFilter('  ')).toEqual([]);
    expect(parseExperimentFilter('previewMetadata.state = ACTIVE')).toEqual([
      { op: '=', state: 'ACTIVE' },
    ]);
    expect(
      parseExperimentFilter('preview_metadata.state!="SUSPENDED" AND previewMetadata.state=ACTIVE'),
    ).toEqual([
      { op: '!=', state: 'SUSPENDED' },
      { op: '=', state: 'ACTIVE' },
    ]);
  });

  it('refuses other fields, operators and states, naming the term it could not read', () => {
    expect(refusal('name = x').message).toBe('filter cannot read "name = x".');
    expect(refusal('previewMetadata.state > ACTIVE').message).toBe(
      'filter cannot read "previewMetadata.state > ACTIVE".',
    );
    expect(refusal('previewMetadata.state = active').message).toBe(
      'filter cannot read "previewMetadata.state = active".',
    );
    expect(refusal('previewMetadata.state = ACTIVE AND state = x').message).toBe(
      'filter cannot read "state = x".',
    );
    expect(refusal('previewMetadata.state = ACTIVE OR previewMetadata.state = X').message).toBe(
      'filter cannot read "previewMetadata.state = ACTIVE OR previewMetadata.state = X".',
    );
    expect(refusal('previewMetadata.state = ACTIVE"').message).toBe(
      'filter cannot read "previewMetadata.state = ACTIVE"".',
    );
    expect(refusal('previewMetadata.state = DELETED').message).toBe(
      'filter unknown state DELETED.',
    );
    expect(refusal(`previewMetadata.state = ${'A'.repeat(600)}`).message).toBe(
      'filter is too long.',
    );
    expect(refusal('previewMetadata.state = DELETED').violations).toEqual([
      {
        '@type': expect.any(String),
        fieldViolations: [
          {
            field: 'filter',
            description:
              'supported: previewMetadata.state = ACTIVE | SUSPENDED | STATE_UNDEFINED, with != and AND',
          },
        ],
      },
    ]);
  });
});
