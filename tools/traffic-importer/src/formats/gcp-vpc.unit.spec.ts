import { gcpVpcParser } from './gcp-vpc';

/**
 * LogEntries as Cloud Logging exports them, with the fields of "VPC Flow Logs record format":
 * `jsonPayload.connection` (src_ip, dest_ip, src_port, dest_port, protocol), `reporter`,
 * `start_time`; int64 fields such as `bytes_sent` are strings in JSON.
 */
const entry = (payload: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    insertId: '1x2y3z',
    jsonPayload: {
      bytes_sent: '1728',
      packets_sent: '13',
      end_time: '2023-01-31T20:05:22.813513556Z',
      dest_instance: {
        project_id: 'my-project',
        region: 'us-central1',
        vm_name: 'instance-1',
        zone: 'us-central1-a',
      },
      ...payload,
    },
    logName: 'projects/my-project/logs/compute.googleapis.com%2Fvpc_flows',
    resource: {
      type: 'gce_subnetwork',
      labels: { project_id: 'my-project', subnetwork_name: 'default' },
    },
    timestamp: '2023-01-31T20:05:41.539512452Z',
    ...extra,
  });

describe('Google Cloud VPC Flow Logs (exported JSON)', () => {
  it('reads an SSH connection reported by its destination VM as INGRESS', () => {
    const line = entry({
      connection: {
        src_ip: '35.235.241.17',
        src_port: 45118,
        dest_ip: '10.128.0.2',
        dest_port: 22,
        protocol: 6,
      },
      reporter: 'DEST',
      start_time: '2023-01-31T20:05:16.803425012Z',
    });
    expect(gcpVpcParser().parse(line)).toEqual({
      kind: 'flow',
      flow: {
        time: new Date('2023-01-31T20:05:16.803Z'),
        direction: 'INGRESS',
        srcIp: '35.235.241.17',
        destIp: '10.128.0.2',
        protocol: 'tcp',
        srcPort: 45118,
        destPort: 22,
      },
    });
  });

  it('reads a source report as EGRESS, ports given as strings, UDP and ICMP', () => {
    const parser = gcpVpcParser();
    const dns = parser.parse(
      entry({
        connection: {
          src_ip: '10.128.0.2',
          src_port: '40001',
          dest_ip: '8.8.8.8',
          dest_port: '53',
          protocol: 17,
        },
        reporter: 'SRC',
        start_time: '2023-01-31T20:05:16Z',
      }),
    );
    expect(dns).toMatchObject({
      kind: 'flow',
      flow: { direction: 'EGRESS', protocol: 'udp', srcPort: 40001, destPort: 53 },
    });
    const ping = parser.parse(
      entry({
        connection: { src_ip: '10.128.0.2', dest_ip: '10.128.0.3', protocol: 1 },
        reporter: 'SRC',
        start_time: '2023-01-31T20:05:16Z',
      }),
    );
    expect(ping).toEqual({
      kind: 'flow',
      flow: {
        time: new Date('2023-01-31T20:05:16Z'),
        direction: 'EGRESS',
        srcIp: '10.128.0.2',
        destIp: '10.128.0.3',
        protocol: 'icmp',
      },
    });
  });

  it('falls back to the entry timestamp when start_time is absent', () => {
    const line = entry({
      connection: {
        src_ip: '10.0.0.1',
        dest_ip: '10.0.0.2',
        protocol: 6,
        src_port: 1,
        dest_port: 2,
      },
      reporter: 'DEST',
    });
    expect(gcpVpcParser().parse(line)).toMatchObject({
      flow: { time: new Date('2023-01-31T20:05:41.539Z') },
    });
  });

  it('reports bad lines: not JSON, no connection, a bad address, an unknown reporter', () => {
    const parser = gcpVpcParser();
    const results = [
      parser.parse('{"jsonPayload": '),
      parser.parse(entry({ reporter: 'SRC', start_time: '2023-01-31T20:05:16Z' })),
      parser.parse(
        entry({
          connection: { src_ip: 'instance-1', dest_ip: '10.0.0.2', protocol: 6 },
          reporter: 'SRC',
          start_time: '2023-01-31T20:05:16Z',
        }),
      ),
      parser.parse(
        entry({
          connection: { src_ip: '10.0.0.1', dest_ip: '10.0.0.2', protocol: 6 },
          reporter: 'BOTH',
          start_time: '2023-01-31T20:05:16Z',
        }),
      ),
      parser.parse('[1, 2]'),
    ];
    expect(results.map((result) => result.kind === 'bad' && result.reason)).toEqual([
      'bad_json',
      'missing_field',
      'bad_address',
      'bad_reporter',
      'bad_json',
    ]);
  });

  it('says once that a gcloud JSON array is not JSON lines, and how to convert it', () => {
    const parser = gcpVpcParser();
    const result = parser.parse('[');
    expect(result).toMatchObject({ kind: 'unreadable', reason: 'json_array' });
    const message = result.kind === 'unreadable' ? result.message : '';
    expect(message).toContain('gcloud logging read --format=json');
    expect(message).toContain("jq -c '.[]' <file> | npx rollout-traffic import --format gcp-vpc");
    expect(gcpVpcParser().parse('[{"insertId": "1x2y3z", "jsonPayload": {}}]')).toMatchObject({
      kind: 'unreadable',
      reason: 'json_array',
    });
    expect(gcpVpcParser().parse('{')).toMatchObject({ kind: 'unreadable', reason: 'pretty_json' });
  });

  it('says a missing field is missing, never "undefined"', () => {
    const results = [
      entry({ connection: { dest_ip: '10.0.0.2', protocol: 6 }, reporter: 'SRC' }),
      entry({ connection: { src_ip: '10.0.0.1', dest_ip: '10.0.0.2' }, reporter: 'SRC' }),
      entry(
        { connection: { src_ip: '10.0.0.1', dest_ip: '10.0.0.2', protocol: 6 } },
        {
          timestamp: undefined,
        },
      ),
    ].map((line) => gcpVpcParser().parse(line));
    expect(results).toEqual([
      { kind: 'bad', reason: 'missing_field', message: 'jsonPayload.connection.src_ip is missing' },
      {
        kind: 'bad',
        reason: 'missing_field',
        message: 'jsonPayload.connection.protocol is missing',
      },
      { kind: 'bad', reason: 'missing_field', message: 'timestamp is missing' },
    ]);
  });
});
