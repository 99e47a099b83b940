import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { TRAFFIC_STREAM, TrafficEvent } from '@rollout/contracts';
import { NatsNamespace } from '@rollout/platform/nats';
import { TEST_NATS_URL, uniqueName } from '@rollout/testing/kit';
import { NatsConnection, connect } from 'nats';
import { FormatName } from './formats';
import { ImportOptions, importFlows } from './importer';
import { resolveInputs } from './inputs';
import { parsePolicyRoutes } from './policy-routes';
import {
  declareImporterBus,
  putLivePolicies,
  removeImporterBus,
  runCli,
} from '../test/importer-world';

/**
 * Each format through the real JetStream: events land on traffic.v1.{project}.{location}.{policy}
 * with Nats-Msg-Id = <project>/<event id>, a second import of the same records stores nothing, and bad lines
 * are counted and reported with their line numbers.
 */
interface FormatCase {
  format: FormatName;
  lines: string[];
  /** 1-based numbers of the bad lines. */
  badLines: number[];
  skipped: number;
  /** The event of the first good record, without its id. */
  first: Omit<TrafficEvent, 'id'>;
}

/** The installation's event id key, one for the file: a re-import gets the same ids. */
const ID_KEY = randomBytes(32);

const ZEEK_FIELDS =
  '#fields\tts\tuid\tid.orig_h\tid.orig_p\tid.resp_h\tid.resp_p\tproto\tlocal_orig\tlocal_resp';
const hubble = (
  source: string,
  destination: string,
  destinationPort: number,
  extra: Record<string, unknown> = {},
) =>
  JSON.stringify({
    flow: {
      time: '2023-03-20T17:22:28.232573613Z',
      verdict: 'FORWARDED',
      IP: { source, destination, ipVersion: 'IPv4' },
      l4: { TCP: { source_port: 49168, destination_port: destinationPort } },
      traffic_direction: 'INGRESS',
      is_reply: false,
      ...extra,
    },
    node_name: 'kind-worker',
    time: '2023-03-20T17:22:28.232573613Z',
  });
const gcp = (srcIp: string, destIp: string, destPort: number, reporter: string) =>
  JSON.stringify({
    jsonPayload: {
      connection: {
        src_ip: srcIp,
        src_port: 45118,
        dest_ip: destIp,
        dest_port: destPort,
        protocol: 6,
      },
      reporter,
      start_time: '2023-01-31T20:05:16.803425012Z',
    },
    logName: 'projects/my-project/logs/compute.googleapis.com%2Fvpc_flows',
    timestamp: '2023-01-31T20:05:41.539512452Z',
  });

const CASES: FormatCase[] = [
  {
    format: 'aws-vpc',
    lines: [
      'version account-id interface-id srcaddr dstaddr srcport dstport protocol packets bytes start end action log-status',
      '2 123456789010 eni-1235b8ca123456789 172.31.16.139 172.31.16.21 20641 22 6 20 4249 1418530010 1418530070 ACCEPT OK',
      '2 123456789010 eni-1235b8ca123456789 172.31.9.69 172.31.9.12 49761 3389 6 20 4249 1418530010 1418530070 REJECT OK',
      '2 123456789010 eni-1235b8ca123456789 - - - - - - - 1431280876 1431280934 - NODATA',
      '2 123456789010 eni-1235b8ca123456789 172.31.9.300 172.31.9.12 49761 3389 6 20 4249 1418530010 1418530070 REJECT OK',
      '2 123456789010 eni-1235b8ca123456789 203.0.113.12 172.31.16.139 0 0 1 4 336 1432917027 1432917142 ACCEPT OK',
    ],
    badLines: [5],
    skipped: 2,
    first: {
      time: '2014-12-14T04:06:50.000Z',
      direction: 'INGRESS',
      srcIp: '172.31.16.139',
      destIp: '172.31.16.21',
      protocol: 'tcp',
      srcPort: 20641,
      destPort: 22,
    },
  },
  {
    format: 'gcp-vpc',
    lines: [
      gcp('35.235.241.17', '10.128.0.2', 22, 'DEST'),
      '{"jsonPayload": ',
      gcp('10.128.0.2', '10.128.0.3', 443, 'SRC'),
      gcp('10.128.0.2', '10.128.0.4', 8080, 'SRC'),
    ],
    badLines: [2],
    skipped: 0,
    first: {
      time: '2023-01-31T20:05:16.803Z',
      direction: 'INGRESS',
      srcIp: '35.235.241.17',
      destIp: '10.128.0.2',
      protocol: 'tcp',
      srcPort: 45118,
      destPort: 22,
    },
  },
  {
    format: 'zeek',
    lines: [
      '#separator \\x09',
      '#unset_field\t-',
      ZEEK_FIELDS,
      '1591367999.305988\tCMdzit1AMNsmfAIiQc\t192.168.4.76\t36844\t192.168.4.1\t53\tudp\tT\tF',
      '1591367999.430166\tC5bLoe2Mvxqhawzqqd\t203.0.113.9\t58320\t192.168.4.76\t22\ttcp\tF\tT',
      '1591367999.5\tC5bLoe2Mvxqhawzqqe\t203.0.113.9',
      '1591367999.6\tC5bLoe2Mvxqhawzqqf\t203.0.113.9\t58321\t192.168.4.76\t443\ttcp\t-\t-',
    ],
    badLines: [6],
    skipped: 3,
    first: {
      time: '2020-06-05T14:39:59.306Z',
      direction: 'EGRESS',
      srcIp: '192.168.4.76',
      destIp: '192.168.4.1',
      protocol: 'udp',
      srcPort: 36844,
      destPort: 53,
    },
  },
  {
    format: 'zeek-json',
    lines: [
      JSON.stringify({
        ts: 1591367999.305988,
        uid: 'CMdzit1AMNsmfAIiQc',
        'id.orig_h': '192.168.4.76',
        'id.orig_p': 36844,
        'id.resp_h': '192.168.4.1',
        'id.resp_p': 53,
        proto: 'udp',
        local_orig: true,
        local_resp: false,
      }),
      JSON.stringify({
        ts: 1591367999.4,
        uid: 'C2',
        'id.orig_h': '203.0.113.9',
        'id.orig_p': 58320,
        'id.resp_h': '192.168.4.76',
        'id.resp_p': 22,
        proto: 'tcp',
      }),
      JSON.stringify({
        ts: 1591367999.5,
        uid: 'C3',
        'id.orig_h': '203.0.113.9',
        'id.orig_p': 99999,
        'id.resp_h': '192.168.4.76',
        'id.resp_p': 22,
        proto: 'tcp',
      }),
    ],
    badLines: [3],
    skipped: 0,
    first: {
      time: '2020-06-05T14:39:59.306Z',
      direction: 'EGRESS',
      srcIp: '192.168.4.76',
      destIp: '192.168.4.1',
      protocol: 'udp',
      srcPort: 36844,
      destPort: 53,
    },
  },
  {
    format: 'hubble',
    lines: [
      hubble('10.244.1.92', '10.244.0.125', 80),
      hubble('10.244.0.125', '10.244.1.92', 49168, { is_reply: true }),
      'not json',
      hubble('10.244.1.93', '10.244.0.125', 8080),
    ],
    badLines: [3],
    skipped: 1,
    first: {
      time: '2023-03-20T17:22:28.232Z',
      direction: 'INGRESS',
      srcIp: '10.244.1.92',
      destIp: '10.244.0.125',
      protocol: 'tcp',
      srcPort: 49168,
      destPort: 80,
    },
  },
  {
    format: 'conntrack',
    lines: [
      '[1437560148.285227]\t    [NEW] tcp      6 120 SYN_SENT src=10.0.0.5 dst=93.184.216.34 sport=52000 dport=80 [UNREPLIED] src=93.184.216.34 dst=10.0.0.5 sport=80 dport=52000',
      '[1437560148.300000]\t [UPDATE] tcp      6 60 SYN_RECV src=10.0.0.5 dst=93.184.216.34 sport=52000 dport=80 src=93.184.216.34 dst=10.0.0.5 sport=80 dport=52000',
      '[1437560148.400000]\t    [NEW] udp      17 30 src=10.0.0.5 dst=10.0.0.53 sport=41000 dport=53 [UNREPLIED] src=10.0.0.53 dst=10.0.0.5 sport=53 dport=41000',
      '[1437560148.500000]\t    [NEW] garbage',
    ],
    badLines: [4],
    skipped: 1,
    first: {
      time: '2015-07-22T10:15:48.285Z',
      direction: 'INGRESS',
      srcIp: '10.0.0.5',
      destIp: '93.184.216.34',
      protocol: 'tcp',
      srcPort: 52000,
      destPort: 80,
    },
  },
];

describe('rollout-traffic import with JetStream', () => {
  let nc: NatsConnection;
  let dir: string;
  const namespace = uniqueName('imp');
  const ns = new NatsNamespace(namespace);

  beforeAll(async () => {
    nc = await connect({ servers: TEST_NATS_URL });
    await declareImporterBus(nc, ns);
    // The policies the command's tests import into are live (it checks).
    await putLivePolicies(nc, ns, 'acme', ['cli-stdin', 'cli-file']);
    dir = await mkdtemp(join(tmpdir(), 'traffic-import-'));
  });

  afterAll(async () => {
    await removeImporterBus(nc, ns);
    await nc.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** Every message on a subject of TRAFFIC: its Nats-Msg-Id and event. */
  async function eventsOn(
    policy: string,
  ): Promise<{ msgId: string | undefined; event: TrafficEvent }[]> {
    const jsm = await nc.jetstreamManager();
    const stream = ns.stream(TRAFFIC_STREAM);
    const subject = ns.subject(`traffic.v1.acme.global.${policy}`);
    const { state } = await jsm.streams.info(stream, { subjects_filter: subject });
    const found = [];
    for (let seq = state.first_seq; seq <= state.last_seq && state.messages > 0; seq++) {
      const message = await jsm.streams.getMessage(stream, { seq }).catch(() => undefined);
      if (message?.subject === subject)
        found.push({
          msgId: message.header?.get('Nats-Msg-Id'),
          event: message.json<TrafficEvent>(),
        });
    }
    return found;
  }

  const options = (format: FormatName, paths: string[], policy: string): Promise<ImportOptions> =>
    resolveInputs(paths).then((inputs) => ({
      format,
      inputs,
      project: 'acme',
      location: 'global',
      policy,
      routes: [],
      defaultDirection: 'INGRESS',
      restamp: false,
      rounds: 1,
      idKey: ID_KEY,
      namespace,
    }));

  describe.each(CASES)('$format', ({ format, lines, badLines, skipped, first }) => {
    const policy = `p-${format}`;
    const good = lines.length - badLines.length - skipped;

    it('publishes every record, stores nothing twice on a re-import, and reports bad lines by number', async () => {
      const path = join(dir, `${format}.log`);
      await writeFile(path, `${lines.join('\n')}\n`);

      const summary = await importFlows(nc, await options(format, [path], policy));
      expect(summary).toMatchObject({ lines: lines.length, published: good, duplicates: 0 });
      expect(Object.values(summary.skipped).reduce((a, b) => a + b, 0)).toBe(skipped);
      expect(summary.badLines.map(({ input, line }) => `${input}:${line}`)).toEqual(
        badLines.map((line) => `${path}:${line}`),
      );

      const landed = await eventsOn(policy);
      expect(landed).toHaveLength(good);
      expect(landed[0].event).toEqual({ id: expect.stringMatching(/^flow-/), ...first });
      // In the project's namespace of message ids: no other project's producer can make it a duplicate.
      expect(landed.every(({ msgId, event }) => msgId === `acme/${event.id}`)).toBe(true);

      const again = await importFlows(nc, await options(format, [path], policy));
      expect(again).toMatchObject({ published: 0, duplicates: good });
      expect(await eventsOn(policy)).toHaveLength(good);
    });
  });

  it('reads gzip files and directories, and places flows by destination CIDR', async () => {
    const zeekDir = join(dir, 'zeek-logs');
    await mkdir(zeekDir);
    const zeek = CASES.find((c) => c.format === 'zeek')!;
    const header = zeek.lines.slice(0, 3);
    await writeFile(
      join(zeekDir, 'conn.00.log.gz'),
      gzipSync(`${[...header, zeek.lines[3]].join('\n')}\n`),
    );
    await writeFile(
      join(zeekDir, 'conn.01.log'),
      `${[...header, zeek.lines[4], zeek.lines[6]].join('\n')}\n`,
    );

    const routes = parsePolicyRoutes('192.168.4.1/32=dns-servers,192.168.0.0/16=lan');
    const summary = await importFlows(nc, {
      ...(await options('zeek', [zeekDir], 'unused')),
      policy: undefined,
      routes,
    });
    expect(summary).toMatchObject({ published: 3, bad: {} });
    expect((await eventsOn('dns-servers')).map(({ event }) => event.destPort)).toEqual([53]);
    expect((await eventsOn('lan')).map(({ event }) => event.destPort)).toEqual([22, 443]);
  });

  describe('the command', () => {
    const cli = (args: string[], stdin = '') =>
      runCli(
        args,
        { NATS_URL: TEST_NATS_URL, NATS_NAMESPACE: namespace, XDG_STATE_HOME: join(dir, 'state') },
        stdin,
      );

    it('exits 0 when every line imports, 1 with bad lines (named by number), 2 when it cannot run', async () => {
      const hubbleCase = CASES.find((c) => c.format === 'hubble')!;
      const clean = await cli(
        ['--format', 'hubble', '--project', 'acme', '--policy', 'cli-stdin', '-'],
        `${hubbleCase.lines[0]}\n${hubbleCase.lines[3]}\n`,
      );
      expect(clean).toMatchObject({ code: 0 });
      expect(clean.stdout).toMatch(
        /^2 lines from 1 input in [\d.]+ s: 2 events published, 0 already in the stream/,
      );
      expect(await eventsOn('cli-stdin')).toHaveLength(2);

      const path = join(dir, 'cli-hubble.log');
      await writeFile(path, `${hubbleCase.lines.join('\n')}\n`);
      const withBad = await cli([
        '--format',
        'hubble',
        '--project',
        'acme',
        '--policy',
        'cli-file',
        path,
      ]);
      expect(withBad.code).toBe(1);
      expect(withBad.stdout).toContain(`${path}:3: bad_json: not JSON`);

      const noPolicy = await cli(['--format', 'hubble', '--project', 'acme', path]);
      expect(noPolicy.code).toBe(2);
      expect(noPolicy.stderr).toContain('say which live policy the flows belong to');

      const unknownFormat = await cli([
        '--format',
        'netflow',
        '--project',
        'acme',
        '--policy',
        'x',
        path,
      ]);
      expect(unknownFormat.code).toBe(2);
      expect(unknownFormat.stderr).toContain(
        'Allowed choices are aws-vpc, gcp-vpc, zeek, zeek-json, hubble, conntrack',
      );
    });

    it('says the TRAFFIC stream is missing instead of losing events', async () => {
      const result = await cli(
        [
          '--format',
          'hubble',
          '--project',
          'nostream',
          '--policy',
          'edge',
          '--namespace',
          uniqueName('none'),
          '--no-check',
          '-',
        ],
        `${CASES.find((c) => c.format === 'hubble')!.lines[0]}\n`,
      );
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('no JetStream stream takes traffic.v1.nostream.global.*');
    });
  });
});
