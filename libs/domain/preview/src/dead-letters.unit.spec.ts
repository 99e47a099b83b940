import { StatusError } from '@rollout/contracts';
import { deadLetterQuery, deadLetterRecord, deadLetterSummary } from './dead-letters';

describe('dead letters', () => {
  it('records the subject’s project, location and policy id, with control characters replaced', () => {
    expect(
      deadLetterRecord({
        key: 'acme.global.web-typo',
        kind: 'bad_address',
        reason: 'invalid traffic event: srcIp "1\u0000" is not an IP address',
      }),
    ).toEqual({
      project: 'acme',
      location: 'global',
      policy: 'web-typo',
      reason: 'bad_address',
      detail: 'invalid traffic event: srcIp "1\uFFFD" is not an IP address',
    });
  });

  it('reads a project location and an optional policy id, or says what is wrong', () => {
    expect(deadLetterQuery({ parent: 'projects/acme/locations/global' })).toEqual({
      project: 'acme',
      location: 'global',
      policy: undefined,
    });
    expect(deadLetterQuery({ parent: 'projects/acme/locations/global', policy: 'web' })).toEqual(
      expect.objectContaining({ policy: 'web' }),
    );
    expect(() => deadLetterQuery({ parent: 'projects/acme' })).toThrow(StatusError);
    expect(() =>
      deadLetterQuery({ parent: 'projects/acme/locations/global', policy: 'a/b' }),
    ).toThrow(/not a policy id/);
  });

  it('sums counts per policy, most dead-lettered first, with the last time of each', () => {
    const at = (s: string) => new Date(`2026-11-28T21:00:0${s}.000Z`);
    const summary = deadLetterSummary(
      [
        { policy: 'web', reason: 'bad_address', messages: 1, lastTime: at('1') },
        { policy: 'web-typo', reason: 'unknown_policy', messages: 5, lastTime: at('3') },
        { policy: 'web', reason: 'invalid_event', messages: 3, lastTime: at('2') },
      ],
      [],
    );
    expect(summary).toEqual({
      total: 9,
      byPolicy: [
        {
          policy: 'web-typo',
          total: 5,
          byReason: [{ reason: 'unknown_policy', count: 5 }],
          lastTime: '2026-11-28T21:00:03.000Z',
        },
        {
          policy: 'web',
          total: 4,
          byReason: [
            { reason: 'invalid_event', count: 3 },
            { reason: 'bad_address', count: 1 },
          ],
          lastTime: '2026-11-28T21:00:02.000Z',
        },
      ],
      samples: [],
    });
  });
});
