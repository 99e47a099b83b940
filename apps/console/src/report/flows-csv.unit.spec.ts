import type { PreviewFlow } from '@rollout/contracts';
import { FLOW_CSV_COLUMNS, csvField, csvStream, flowCsvChunks, flowCsvLine } from './flows-csv';

const flow = (srcIp: string): PreviewFlow => ({
  experimentEtag: 'e1',
  livePolicyEtag: 'l1',
  direction: 'INGRESS',
  srcIp,
  destIp: '10.0.0.5',
  protocol: 'tcp',
  destPort: 22,
  transition: 'ALLOW_TO_DENY',
  liveResult: { action: 'allow', rulePriority: 1000, implied: false },
  experimentResult: { action: 'deny', rulePriority: 900, implied: false },
  count: 7,
  firstEventTime: '2026-11-28T21:50:27.120Z',
  lastEventTime: '2026-11-28T21:51:10Z',
  samples: [{ trafficEventId: 'ev,"1"', eventTime: '2026-11-28T21:50:27Z', srcPort: 40000 }],
});

describe('the changed flows as CSV', () => {
  it('quotes what needs quoting', () => {
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "x"')).toBe('"say ""x"""');
    expect(csvField(undefined)).toBe('');
    expect(csvField(22)).toBe('22');
  });

  it('writes every page of the listing, in order, as one row per flow with the API’s fields', async () => {
    const pages: Record<string, { previewFlows: PreviewFlow[]; nextPageToken?: string }> = {
      first: { previewFlows: [flow('198.51.100.1'), flow('198.51.100.2')], nextPageToken: 't2' },
      t2: { previewFlows: [flow('198.51.100.3')], nextPageToken: 't3' },
      t3: { previewFlows: [flow('198.51.100.4')] },
    };
    const asked: (string | undefined)[] = [];
    const counted: number[] = [];
    const stream = csvStream(
      flowCsvChunks(
        async (token) => {
          asked.push(token);
          return pages[token ?? 'first'];
        },
        (rows) => counted.push(rows),
      ),
    );
    const text = await new Response(stream).text();
    const lines = text.split('\r\n').filter(Boolean);
    expect(asked).toEqual([undefined, 't2', 't3']);
    expect(counted).toEqual([2, 3, 4]);
    expect(lines[0]).toBe(FLOW_CSV_COLUMNS.join(','));
    expect(lines.slice(1).map((line) => line.split(',')[3])).toEqual([
      '198.51.100.1',
      '198.51.100.2',
      '198.51.100.3',
      '198.51.100.4',
    ]);
    expect(flowCsvLine(flow('198.51.100.1'))).toBe(
      'e1,l1,INGRESS,198.51.100.1,10.0.0.5,tcp,22,ALLOW_TO_DENY,allow,1000,false,deny,900,false,7,' +
        '2026-11-28T21:50:27.120Z,2026-11-28T21:51:10Z,' +
        '"[{""trafficEventId"":""ev,\\""1\\"""",""eventTime"":""2026-11-28T21:50:27Z"",""srcPort"":40000}]"\r\n',
    );
  });
});
