import { DeadLetterLogSummariser } from './dead-letter-log';

const sample = (n: number, reason = 'unknown_policy') => ({
  subject: `traffic.v1.acme.global.web-${n}`,
  reason,
  detail: `detail ${n}`,
});

describe('DeadLetterLogSummariser', () => {
  let now: number;
  const summariser = () =>
    new DeadLetterLogSummariser(() => now, { intervalMs: 30_000, maxSamples: 3 });
  beforeEach(() => (now = Date.parse('2026-11-28T21:00:00.000Z')));

  it('says nothing for an interval without dead letters', () => {
    const log = summariser();
    now += 60_000;
    expect(log.due()).toBeUndefined();
    expect(log.flush()).toBeUndefined();
  });

  it('gives one summary for a flood within an interval: counts per reason and the first 3', () => {
    const log = summariser();
    const lines = [];
    for (let i = 0; i < 100_000; i++) {
      const line = log.note(sample(i, i % 4 === 0 ? 'bad_address' : 'unknown_policy'));
      if (line) lines.push(line);
    }
    expect(lines).toEqual([]);
    now += 30_000;
    const summary = log.due();
    expect(summary).toEqual({
      total: 100_000,
      byReason: { bad_address: 25_000, unknown_policy: 75_000 },
      samples: [sample(0, 'bad_address'), sample(1), sample(2)],
      since: '2026-11-28T21:00:00.000Z',
      until: '2026-11-28T21:00:30.000Z',
    });
    expect(log.due()).toBeUndefined();
  });

  it('closes an interval with the dead letter that comes once it has run its length', () => {
    const log = summariser();
    expect(log.note(sample(1))).toBeUndefined();
    now += 29_999;
    expect(log.note(sample(2))).toBeUndefined();
    now += 1;
    expect(log.note(sample(3))).toMatchObject({ total: 3 });
    // The next interval starts with the next dead letter, from zero.
    now += 10_000;
    expect(log.note(sample(4))).toBeUndefined();
    now += 30_000;
    expect(log.due()).toMatchObject({ total: 1, samples: [sample(4)] });
  });

  it('flushes what is left at shutdown, whatever the interval', () => {
    const log = summariser();
    log.note(sample(1, 'bad_json'));
    expect(log.flush()).toMatchObject({ total: 1, byReason: { bad_json: 1 } });
    expect(log.flush()).toBeUndefined();
  });
});
