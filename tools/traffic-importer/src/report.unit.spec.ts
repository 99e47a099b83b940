import { emptySummary } from './importer';
import { formatProgress, formatSummary } from './report';

describe('import report', () => {
  it('sums up what was published, skipped and bad, with the first bad lines', () => {
    const summary = {
      ...emptySummary(),
      lines: 1_000_010,
      published: 999_990,
      duplicates: 10,
      skipped: { header: 8 },
      bad: { bad_address: 1, wrong_field_count: 2 },
      badLines: [
        {
          input: 'conn.log',
          line: 17,
          reason: 'bad_address',
          message: 'id.orig_h "10.0.0.256" is not an IP address',
        },
        {
          input: 'conn.log',
          line: 18,
          reason: 'wrong_field_count',
          message: '3 fields where #fields names 21',
        },
      ],
      elapsedMs: 40_000,
    };
    expect(formatSummary(summary, 1).split('\n')).toEqual([
      '1,000,010 lines from 1 input in 40.0 s: 999,990 events published, 10 already in the stream (25,000 events/s)',
      '  skipped: header 8',
      '  bad lines: 3 (wrong_field_count 2, bad_address 1)',
      '    conn.log:17: bad_address: id.orig_h "10.0.0.256" is not an IP address',
      '    conn.log:18: wrong_field_count: 3 fields where #fields names 21',
      '    … and 1 more',
    ]);
  });

  it('says what a dry run would publish, per policy, and what positions kept from being read again', () => {
    const summary = {
      ...emptySummary(),
      dryRun: true,
      lines: 12,
      routed: { lan: 3, 'dns-servers': 7 },
      skipped: { dns_log: 2 },
      alreadyImported: 1_200,
      elapsedMs: 100,
    };
    expect(formatSummary(summary, 2).split('\n')).toEqual([
      '12 lines from 2 inputs in 0.1 s: dry run, nothing published: 10 events would be published',
      '  by policy: dns-servers 7, lan 3',
      '  not read again: 1,200 lines an earlier import published (positions)',
      '  skipped: dns_log 2',
    ]);
  });

  it('draws progress against the bytes to read, or counts events alone on a stream', () => {
    const summary = { ...emptySummary(), published: 500, bytesRead: 250, elapsedMs: 2000 };
    expect(formatProgress(summary, 1000, 10)).toBe('[###.......]  25%  500 events, 250 events/s');
    expect(formatProgress(summary, undefined)).toBe('500 events, 250 events/s');
  });
});
