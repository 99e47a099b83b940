import type { PreviewFlow, PreviewTimeBucket, RuleTransition } from '@rollout/contracts';
import { percent, shareText } from './evidence';
import { seenSpan } from './flow-text';
import { FLOW_CSV_COLUMNS, csvField, csvStream, flowCsvChunks, flowCsvLine } from './flows-csv';
import { sankeyOption } from './sankey';
import { VERDICT_COLOURS, bucketLabels, bucketSizeLabel, timeBucketsOption } from './time-buckets';

const bucket = (startTime: string, width: 'MINUTE' | 'HOUR' = 'MINUTE'): PreviewTimeBucket => ({
  startTime,
  width,
  evaluated: 10,
  changed: 4,
  allowToDeny: 3,
  denyToAllow: 1,
});

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

describe('the report’s evidence in words', () => {
  it('says a share as counts and a whole percentage', () => {
    expect(shareText(806, 6058, 'events')).toBe('806 of 6,058 events, 13%');
    expect(percent(1, 1000)).toBe('<1%');
    expect(percent(999, 1000)).toBe('>99%');
    expect(percent(0, 0)).toBe('0%');
    expect(percent(5, 5)).toBe('100%');
  });

  it('shows when a flow was seen without wrapping: one day short, several days with both', () => {
    expect(seenSpan('2026-11-28T21:50:27.120Z', '2026-11-28T21:51:10Z')).toBe(
      '11-28 21:50:27–21:51:10',
    );
    expect(seenSpan('2026-11-28T21:50:27Z', '2026-11-28T21:50:27Z')).toBe('11-28 21:50:27');
    expect(seenSpan('2026-11-28T21:50:27Z', '2026-11-29T02:10:00Z')).toBe(
      '11-28 21:50–11-29 02:10',
    );
  });
});

describe('verdicts over time', () => {
  it('labels the bucket size', () => {
    expect(bucketSizeLabel([bucket('2026-11-28T21:50:00Z')])).toBe('per minute');
    expect(bucketSizeLabel([bucket('2026-11-28T10:00:00Z', 'HOUR')])).toBe('per hour');
    expect(
      bucketSizeLabel([bucket('2026-11-28T10:00:00Z', 'HOUR'), bucket('2026-11-28T21:50:00Z')]),
    ).toMatch(/^per hour, then per minute/);
  });

  it('draws stacked bars on one axis, one bar per bucket, labelled by minute not by second', () => {
    const buckets = [bucket('2026-11-28T21:50:00Z'), bucket('2026-11-28T21:51:00Z')];
    const option = timeBucketsOption(buckets);
    expect(option.yAxis).not.toBeInstanceOf(Array);
    expect(option.xAxis.data).toEqual(['21:50', '21:51']);
    expect(option.xAxis.axisLabel.hideOverlap).toBe(true);
    expect(option.series.map((s) => [s.type, s.stack, s.data])).toEqual([
      ['bar', 'events', [3, 3]],
      ['bar', 'events', [1, 1]],
      ['bar', 'events', [6, 6]],
    ]);
    expect(bucketLabels([bucket('2026-11-28T23:59:00Z'), bucket('2026-11-29T00:00:00Z')])).toEqual([
      '11-28 23:59',
      '11-29 00:00',
    ]);
  });
});

describe('the Sankey of rule transitions', () => {
  const transitions: RuleTransition[] = [
    {
      live: { action: 'allow', rulePriority: 1000, implied: false },
      experiment: { action: 'deny', rulePriority: 900, implied: false },
      count: 30,
    },
    {
      live: { action: 'allow', rulePriority: 1000, implied: false },
      experiment: { action: 'allow', rulePriority: 1000, implied: false },
      count: 20,
    },
    {
      live: { action: 'deny', rulePriority: null, implied: true },
      experiment: { action: 'deny', rulePriority: null, implied: true },
      count: 10,
    },
  ];
  const option = sankeyOption(transitions, {
    experiment: [
      {
        priority: 900,
        direction: 'INGRESS',
        action: 'deny',
        match: {
          srcIpRanges: ['0.0.0.0/0'],
          layer4Configs: [{ ipProtocol: 'tcp', ports: ['22'] }],
        },
      },
    ],
  });
  const [series] = option.series;

  it('colours changed links by their new verdict and unchanged ones grey', () => {
    expect(series.links.map((l) => [l.changed, l.lineStyle.color])).toEqual([
      [true, VERDICT_COLOURS.deny],
      [false, VERDICT_COLOURS.unchanged],
      [false, VERDICT_COLOURS.unchanged],
    ]);
  });

  it('says on hover what each node’s rule matches', () => {
    const described = Object.fromEntries(series.data.map((n) => [n.name, n.description]));
    expect(described['experiment rule 900 (deny)']).toBe(
      'experiment rule 900 (deny): matches INGRESS deny tcp/22 from 0.0.0.0/0 to anywhere',
    );
    expect(described['live implied deny']).toMatch(/no rule matches/);
    expect(described['live rule 1000 (allow)']).toMatch(/not held/);
    expect(series.data.find((n) => n.name === 'live rule 1000 (allow)')?.itemStyle.color).toBe(
      VERDICT_COLOURS.allow,
    );
  });
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
