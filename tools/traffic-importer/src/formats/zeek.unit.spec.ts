import { zeekJsonParser, zeekTsvParser } from './zeek';

/** conn.log as Zeek's ASCII writer and its JSON mode write it (Zeek docs, "conn.log"). */
const TSV_HEADER = [
  '#separator \\x09',
  '#set_separator\t,',
  '#empty_field\t(empty)',
  '#unset_field\t-',
  '#path\tconn',
  '#open\t2020-06-05-14-39-59',
  '#fields\tts\tuid\tid.orig_h\tid.orig_p\tid.resp_h\tid.resp_p\tproto\tservice\tduration\torig_bytes\tresp_bytes\tconn_state\tlocal_orig\tlocal_resp\tmissed_bytes\thistory\torig_pkts\torig_ip_bytes\tresp_pkts\tresp_ip_bytes\ttunnel_parents',
  '#types\ttime\tstring\taddr\tport\taddr\tport\tenum\tstring\tinterval\tcount\tcount\tstring\tbool\tbool\tcount\tstring\tcount\tcount\tcount\tcount\tset[string]',
];

describe('Zeek conn.log, TSV', () => {
  it('reads the #fields header and a DNS connection from a local host (EGRESS)', () => {
    const parser = zeekTsvParser();
    expect(TSV_HEADER.map((line) => parser.parse(line))).toEqual(
      TSV_HEADER.map(() => ({ kind: 'skip', reason: 'header' })),
    );
    const dns = parser.parse(
      '1591367999.305988\tCMdzit1AMNsmfAIiQc\t192.168.4.76\t36844\t192.168.4.1\t53\tudp\tdns\t0.066851\t62\t141\tSF\tT\tF\t0\tDd\t2\t118\t2\t197\t-',
    );
    expect(dns).toEqual({
      kind: 'flow',
      flow: {
        time: new Date(1591367999_306),
        direction: 'EGRESS',
        srcIp: '192.168.4.76',
        destIp: '192.168.4.1',
        protocol: 'udp',
        srcPort: 36844,
        destPort: 53,
      },
    });
  });

  it('reads inbound SSH as INGRESS, unset fields, IPv6 ICMP as icmpv6 without ports', () => {
    const parser = zeekTsvParser();
    TSV_HEADER.forEach((line) => parser.parse(line));
    expect(
      parser.parse(
        '1591367999.430166\tC5bLoe2Mvxqhawzqqd\t203.0.113.9\t58320\t192.168.4.76\t22\ttcp\tssh\t-\t-\t-\tS0\tF\tT\t0\tS\t1\t60\t0\t0\t-',
      ),
    ).toMatchObject({
      kind: 'flow',
      flow: { direction: 'INGRESS', protocol: 'tcp', destPort: 22 },
    });
    expect(
      parser.parse(
        '1591367999.512593\tCxT6fs1A0qBaRIBEQj\tfe80::3ea8:2aff:fe5b:8d10\t135\tff02::1\t136\ticmp\t-\t-\t-\t-\tOTH\tT\tF\t0\t-\t1\t72\t0\t0\t-',
      ),
    ).toEqual({
      kind: 'flow',
      flow: {
        time: new Date(1591367999_513),
        direction: 'EGRESS',
        srcIp: 'fe80::3ea8:2aff:fe5b:8d10',
        destIp: 'ff02::1',
        protocol: 'icmpv6',
      },
    });
    expect(
      parser.parse(
        '1591367999.6\tCxT6fs1A0qBaRIBEQk\t10.0.0.1\t0\t10.0.0.2\t0\tunknown_transport\t-\t-\t-\t-\tOTH\t-\t-\t0\t-\t1\t72\t0\t0\t-',
      ),
    ).toEqual({ kind: 'skip', reason: 'unknown_transport' });
    expect(parser.parse('#close\t2020-06-05-14-40-00')).toEqual({ kind: 'skip', reason: 'header' });
  });

  it('follows another separator and field order', () => {
    const parser = zeekTsvParser();
    parser.parse('#separator ,');
    parser.parse('#fields,id.resp_h,id.resp_p,id.orig_h,id.orig_p,proto,ts');
    expect(parser.parse('10.0.0.5,443,198.51.100.7,51512,tcp,1700000000')).toMatchObject({
      flow: { srcIp: '198.51.100.7', destIp: '10.0.0.5', destPort: 443 },
    });
  });

  it('reports data before #fields, a wrong field count and a bad address', () => {
    const early = zeekTsvParser().parse(
      '1591367999.305988\tC1\t192.168.4.76\t36844\t192.168.4.1\t53\tudp',
    );
    expect(early).toMatchObject({ kind: 'bad', reason: 'no_header' });
    const parser = zeekTsvParser();
    TSV_HEADER.forEach((line) => parser.parse(line));
    expect(parser.parse('1591367999.305988\tC1\t192.168.4.76')).toMatchObject({
      kind: 'bad',
      reason: 'wrong_field_count',
    });
    expect(
      parser.parse(
        '1591367999.305988\tC1\t192.168.4.276\t36844\t192.168.4.1\t53\tudp\tdns\t0.06\t62\t141\tSF\tT\tF\t0\tDd\t2\t118\t2\t197\t-',
      ),
    ).toMatchObject({
      kind: 'bad',
      reason: 'bad_address',
      message: 'id.orig_h "192.168.4.276" is not an IP address',
    });
  });

  it('reads conn.log only: the records of dns.log, http.log, ssl.log are skipped, counted by log', () => {
    const other = (path: string, line: string) => {
      const parser = zeekTsvParser();
      const header = TSV_HEADER.map((h) => (h === '#path\tconn' ? `#path\t${path}` : h));
      header.forEach((h) => parser.parse(h));
      return parser.parse(line);
    };
    // dns.log has id.*, and proto too: without #path it would pass for a connection.
    const dnsLine =
      '1591367999.305988\tCMdzit1AMNsmfAIiQc\t192.168.4.76\t36844\t192.168.4.1\t53\tudp\t8\t0.06\texample.com';
    expect(other('dns', dnsLine)).toEqual({ kind: 'skip', reason: 'dns_log' });
    expect(other('http', 'anything')).toEqual({ kind: 'skip', reason: 'http_log' });
    expect(other('ssl', 'anything')).toEqual({ kind: 'skip', reason: 'ssl_log' });
    expect(other('conn', dnsLine)).toMatchObject({ kind: 'bad', reason: 'wrong_field_count' });
  });

  it('says an unset address is missing, never "undefined"', () => {
    const parser = zeekTsvParser();
    TSV_HEADER.forEach((line) => parser.parse(line));
    expect(
      parser.parse(
        '1591367999.305988\tC1\t-\t36844\t192.168.4.1\t53\tudp\tdns\t0.06\t62\t141\tSF\tT\tF\t0\tDd\t2\t118\t2\t197\t-',
      ),
    ).toEqual({ kind: 'bad', reason: 'missing_field', message: 'id.orig_h is missing' });
    expect(
      parser.parse(
        '1591367999.305988\tC1\t192.168.4.76\t-\t192.168.4.1\t53\tudp\tdns\t0.06\t62\t141\tSF\tT\tF\t0\tDd\t2\t118\t2\t197\t-',
      ),
    ).toEqual({ kind: 'bad', reason: 'missing_field', message: 'id.orig_p is missing' });
  });
});

describe('Zeek conn.log, JSON', () => {
  it('reads a connection with epoch or ISO 8601 timestamps', () => {
    const parser = zeekJsonParser();
    const line = {
      ts: 1591367999.305988,
      uid: 'CMdzit1AMNsmfAIiQc',
      'id.orig_h': '192.168.4.76',
      'id.orig_p': 36844,
      'id.resp_h': '192.168.4.1',
      'id.resp_p': 53,
      proto: 'udp',
      service: 'dns',
      duration: 0.066851,
      orig_bytes: 62,
      resp_bytes: 141,
      conn_state: 'SF',
      local_orig: true,
      local_resp: true,
      missed_bytes: 0,
      history: 'Dd',
      orig_pkts: 2,
      orig_ip_bytes: 118,
      resp_pkts: 2,
      resp_ip_bytes: 197,
    };
    expect(parser.parse(JSON.stringify(line))).toEqual({
      kind: 'flow',
      flow: {
        time: new Date(1591367999_306),
        srcIp: '192.168.4.76',
        destIp: '192.168.4.1',
        protocol: 'udp',
        srcPort: 36844,
        destPort: 53,
      },
    });
    expect(
      parser.parse(JSON.stringify({ ...line, ts: '2020-06-05T14:39:59.305988Z' })),
    ).toMatchObject({ flow: { time: new Date('2020-06-05T14:39:59.305Z') } });
  });

  it('reports bad lines: not JSON, no proto, a bad port', () => {
    const parser = zeekJsonParser();
    expect(parser.parse('{"ts":')).toMatchObject({ kind: 'bad', reason: 'bad_json' });
    expect(
      parser.parse(JSON.stringify({ ts: 1, 'id.orig_h': '10.0.0.1', 'id.resp_h': '10.0.0.2' })),
    ).toMatchObject({ kind: 'bad', reason: 'missing_field' });
    expect(
      parser.parse(
        JSON.stringify({
          ts: 1,
          'id.orig_h': '10.0.0.1',
          'id.orig_p': -1,
          'id.resp_h': '10.0.0.2',
          'id.resp_p': 80,
          proto: 'tcp',
        }),
      ),
    ).toMatchObject({ kind: 'bad', reason: 'bad_port' });
  });

  it('reads conn.log records only: by _path when written, else by the file name', () => {
    const dns = JSON.stringify({
      ts: 1591367999.305988,
      uid: 'C1',
      'id.orig_h': '192.168.4.76',
      'id.orig_p': 36844,
      'id.resp_h': '192.168.4.1',
      'id.resp_p': 53,
      proto: 'udp',
      query: 'example.com',
    });
    const withPath = (path: string) => JSON.stringify({ ...JSON.parse(dns), _path: path });
    expect(zeekJsonParser().parse(withPath('dns'))).toEqual({ kind: 'skip', reason: 'dns_log' });
    expect(zeekJsonParser().parse(withPath('conn'))).toMatchObject({ kind: 'flow' });
    expect(zeekJsonParser({ name: '/var/log/zeek/2026-11-25/dns.log' }).parse(dns)).toEqual({
      kind: 'skip',
      reason: 'dns_log',
    });
    expect(zeekJsonParser({ name: 'logs/http.00:00:00-01:00:00.log.gz' }).parse(dns)).toEqual({
      kind: 'skip',
      reason: 'http_log',
    });
    // conn.log, and names that are not Zeek's, are read.
    expect(zeekJsonParser({ name: 'logs/conn.00:00:00-01:00:00.log.gz' }).parse(dns)).toMatchObject(
      { kind: 'flow' },
    );
    expect(zeekJsonParser({ name: 'export.json' }).parse(dns)).toMatchObject({ kind: 'flow' });
    expect(zeekJsonParser().parse('[')).toMatchObject({ kind: 'unreadable', reason: 'json_array' });
  });
});
