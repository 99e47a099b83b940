import { hubbleParser } from './hubble';

/**
 * GetFlowsResponse lines as `hubble observe -o jsonpb` prints them: the Flow message of
 * cilium's flow.proto (time, verdict, IP, l4, source, destination, Type, node_name,
 * traffic_direction, is_reply, Summary) under `flow`, with the response's node_name and time.
 */
const response = (flow: Record<string, unknown>) =>
  JSON.stringify({
    flow: {
      time: '2023-03-20T17:22:28.232573613Z',
      verdict: 'FORWARDED',
      ethernet: { source: '12:8a:71:1c:b3:48', destination: '6e:52:a9:2b:04:4c' },
      source: {
        ID: 1544,
        identity: 17216,
        namespace: 'default',
        labels: ['k8s:app=tiefighter'],
        pod_name: 'tiefighter',
      },
      destination: {
        identity: 12385,
        namespace: 'default',
        labels: ['k8s:app=deathstar'],
        pod_name: 'deathstar-7848d6c4d5-mlm9f',
      },
      Type: 'L3_L4',
      node_name: 'kind-worker',
      event_type: { type: 4, sub_type: 3 },
      trace_observation_point: 'TO_ENDPOINT',
      is_reply: false,
      Summary: 'TCP Flags: SYN',
      ...flow,
    },
    node_name: 'kind-worker',
    time: '2023-03-20T17:22:28.232573613Z',
  });

describe('Cilium Hubble flows (hubble observe -o jsonpb)', () => {
  it('reads a TCP flow with its direction', () => {
    const line = response({
      IP: { source: '10.244.1.92', destination: '10.244.0.125', ipVersion: 'IPv4' },
      l4: { TCP: { source_port: 49168, destination_port: 80, flags: { SYN: true } } },
      traffic_direction: 'INGRESS',
    });
    expect(hubbleParser().parse(line)).toEqual({
      kind: 'flow',
      flow: {
        time: new Date('2023-03-20T17:22:28.232Z'),
        direction: 'INGRESS',
        srcIp: '10.244.1.92',
        destIp: '10.244.0.125',
        protocol: 'tcp',
        srcPort: 49168,
        destPort: 80,
        srcSecureTags: ['k8s:app=tiefighter'],
      },
    });
  });

  it("carries the source's labels, deduplicated, as srcSecureTags (none when the source has none)", () => {
    const parser = hubbleParser();
    const flow = {
      IP: { source: '10.244.1.92', destination: '10.244.0.125' },
      l4: { TCP: { source_port: 49168, destination_port: 5432 } },
    };
    const labels = [
      'k8s:app=api',
      'k8s:io.kubernetes.pod.namespace=shop',
      'k8s:app=api',
      '',
      'x'.repeat(257),
    ];
    expect(parser.parse(response({ ...flow, source: { identity: 1, labels } }))).toMatchObject({
      flow: { srcSecureTags: ['k8s:app=api', 'k8s:io.kubernetes.pod.namespace=shop'] },
    });
    const many = Array.from({ length: 70 }, (_, i) => `k8s:label${i}=x`);
    const capped = parser.parse(response({ ...flow, source: { labels: many } }));
    expect(capped.kind === 'flow' && capped.flow.srcSecureTags).toEqual(many.slice(0, 64));
    const bare = parser.parse(response({ ...flow, source: { identity: 2 } }));
    expect(bare.kind === 'flow' && bare.flow.srcSecureTags).toBeUndefined();
  });

  it('reads UDP, ICMPv4 and ICMPv6, IPv6 addresses, and lowerCamelCase field names', () => {
    const parser = hubbleParser();
    expect(
      parser.parse(
        response({
          IP: { source: '10.244.1.92', destination: '10.96.0.10' },
          l4: { UDP: { source_port: 53211, destination_port: 53 } },
          traffic_direction: 'EGRESS',
        }),
      ),
    ).toMatchObject({
      flow: { direction: 'EGRESS', protocol: 'udp', destPort: 53 },
    });
    expect(
      parser.parse(
        response({
          IP: { source: '10.244.1.92', destination: '10.244.0.125' },
          l4: { ICMPv4: { type: 8 } },
          traffic_direction: 'EGRESS',
        }),
      ),
    ).toEqual({
      kind: 'flow',
      flow: {
        time: new Date('2023-03-20T17:22:28.232Z'),
        direction: 'EGRESS',
        srcIp: '10.244.1.92',
        destIp: '10.244.0.125',
        protocol: 'icmp',
        srcSecureTags: ['k8s:app=tiefighter'],
      },
    });
    expect(
      parser.parse(
        response({
          IP: { source: 'fd00::1', destination: 'fd00::2', ipVersion: 'IPv6' },
          l4: { ICMPv6: { type: 128 } },
        }),
      ),
    ).toMatchObject({ flow: { protocol: 'icmpv6' } });
    const camel = JSON.stringify({
      flow: {
        time: '2023-03-20T17:22:28Z',
        IP: { source: '10.0.0.1', destination: '10.0.0.2' },
        l4: { TCP: { sourcePort: 40000, destinationPort: 443 } },
        trafficDirection: 'INGRESS',
        isReply: false,
      },
    });
    expect(parser.parse(camel)).toMatchObject({
      flow: { direction: 'INGRESS', srcPort: 40000, destPort: 443 },
    });
  });

  it('skips replies, flows without an IP layer, and responses that are not flows', () => {
    const parser = hubbleParser();
    expect(
      parser.parse(
        response({
          IP: { source: '10.244.0.125', destination: '10.244.1.92' },
          l4: { TCP: { source_port: 80, destination_port: 49168 } },
          is_reply: true,
        }),
      ),
    ).toEqual({ kind: 'skip', reason: 'reply' });
    expect(
      parser.parse(
        response({ Type: 'L7', l7: { type: 'REQUEST', dns: { query: 'example.com.' } } }),
      ),
    ).toEqual({ kind: 'skip', reason: 'no_ip_layer' });
    expect(
      parser.parse(
        JSON.stringify({
          node_status: { state_change: 'NODE_CONNECTED', node_names: ['kind-worker'] },
          node_name: 'relay',
          time: '2023-03-20T17:22:28Z',
        }),
      ),
    ).toEqual({ kind: 'skip', reason: 'node_status' });
  });

  it('reports bad lines: not JSON, a bad address, no transport it knows', () => {
    const parser = hubbleParser();
    expect(parser.parse('{"flow":{')).toMatchObject({ kind: 'bad', reason: 'bad_json' });
    expect(
      parser.parse(response({ IP: { source: 'pod-a', destination: '10.0.0.2' }, l4: { TCP: {} } })),
    ).toMatchObject({ kind: 'bad', reason: 'bad_address' });
    expect(
      parser.parse(
        response({ IP: { source: '10.0.0.1', destination: '10.0.0.2' }, l4: { VRRP: {} } }),
      ),
    ).toMatchObject({ kind: 'bad', reason: 'bad_protocol' });
    expect(parser.parse('{}')).toMatchObject({ kind: 'bad', reason: 'missing_field' });
  });

  it('says once that a JSON array is not one flow per line; a missing address is missing, not "undefined"', () => {
    expect(hubbleParser().parse('[')).toMatchObject({ kind: 'unreadable', reason: 'json_array' });
    const missing = hubbleParser().parse(
      JSON.stringify({
        flow: {
          time: '2023-03-20T17:22:28.232573613Z',
          IP: { destination: '10.244.0.125' },
          l4: { TCP: { destination_port: 80 } },
        },
      }),
    );
    expect(missing).toEqual({
      kind: 'bad',
      reason: 'missing_field',
      message: 'flow.IP.source is missing',
    });
  });
});
