import type { FlowParser, LineResult } from '../flow';
import { awsVpcParser } from './aws-vpc';

/** Records from the AWS VPC Flow Logs user guide ("Flow log record examples"). */
const parseAll = (parser: FlowParser, lines: string[]): LineResult[] =>
  lines.map((line) => parser.parse(line));

describe('AWS VPC Flow Logs (text)', () => {
  it('reads the default version 2 format: accepted SSH and rejected RDP traffic', () => {
    const [ssh, rdp] = parseAll(awsVpcParser(), [
      '2 123456789010 eni-1235b8ca123456789 172.31.16.139 172.31.16.21 20641 22 6 20 4249 1418530010 1418530070 ACCEPT OK',
      '2 123456789010 eni-1235b8ca123456789 172.31.9.69 172.31.9.12 49761 3389 6 20 4249 1418530010 1418530070 REJECT OK',
    ]);
    expect(ssh).toEqual({
      kind: 'flow',
      flow: {
        time: new Date(1418530010_000),
        srcIp: '172.31.16.139',
        destIp: '172.31.16.21',
        protocol: 'tcp',
        srcPort: 20641,
        destPort: 22,
      },
    });
    expect(rdp).toMatchObject({ kind: 'flow', flow: { srcIp: '172.31.9.69', destPort: 3389 } });
  });

  it('skips NODATA and SKIPDATA records, which carry no connection', () => {
    expect(
      parseAll(awsVpcParser(), [
        '2 123456789010 eni-1235b8ca123456789 - - - - - - - 1431280876 1431280934 - NODATA',
        '2 123456789010 eni-11111111aaaaaaaaa - - - - - - - 1431280876 1431280934 - SKIPDATA',
      ]),
    ).toEqual([
      { kind: 'skip', reason: 'NODATA' },
      { kind: 'skip', reason: 'SKIPDATA' },
    ]);
  });

  it('reads ICMP without ports and IPv6 addresses', () => {
    const [icmp, v6] = parseAll(awsVpcParser(), [
      '2 123456789010 eni-1235b8ca123456789 203.0.113.12 172.31.16.139 0 0 1 4 336 1432917027 1432917142 ACCEPT OK',
      '2 123456789010 eni-1235b8ca123456789 2001:db8:1234:a100:8d6e:3477:df66:f105 2001:db8:1234:a102:3304:8879:34cf:4071 34892 22 6 54 8855 1477913708 1477913820 ACCEPT OK',
    ]);
    expect(icmp).toEqual({
      kind: 'flow',
      flow: {
        time: new Date(1432917027_000),
        srcIp: '203.0.113.12',
        destIp: '172.31.16.139',
        protocol: 'icmp',
      },
    });
    expect(v6).toMatchObject({
      kind: 'flow',
      flow: { srcIp: '2001:db8:1234:a100:8d6e:3477:df66:f105', protocol: 'tcp', destPort: 22 },
    });
  });

  it('follows a custom field order given by the header line, flow-direction included', () => {
    const parser = awsVpcParser();
    const [header, transit, egress] = parseAll(parser, [
      'version vpc-id subnet-id instance-id interface-id account-id type srcaddr dstaddr srcport dstport pkt-srcaddr pkt-dstaddr protocol bytes packets start end action tcp-flags log-status flow-direction',
      '3 vpc-abcdefab012345678 subnet-aaaaaaaa012345678 i-01234567890123456 eni-1235b8ca123456789 123456789010 IPv4 52.213.180.42 10.0.0.62 43416 5001 52.213.180.42 10.0.0.62 6 568 8 1566848875 1566848933 ACCEPT 2 OK ingress',
      '5 vpc-abcdefab012345678 subnet-aaaaaaaa012345678 i-01234567890123456 eni-1235b8ca123456789 123456789010 IPv4 10.0.0.62 198.51.100.9 51000 443 10.0.0.62 198.51.100.9 6 1200 10 1566848875 1566848933 ACCEPT 2 OK egress',
    ]);
    expect(header).toEqual({ kind: 'skip', reason: 'header' });
    expect(transit).toEqual({
      kind: 'flow',
      flow: {
        time: new Date(1566848875_000),
        direction: 'INGRESS',
        srcIp: '52.213.180.42',
        destIp: '10.0.0.62',
        protocol: 'tcp',
        srcPort: 43416,
        destPort: 5001,
      },
    });
    expect(egress).toMatchObject({
      kind: 'flow',
      flow: { direction: 'EGRESS', destIp: '198.51.100.9', destPort: 443 },
    });
  });

  it('reports bad lines with a reason: field count, address, port, protocol, a header without addresses', () => {
    const results = parseAll(awsVpcParser(), [
      '2 123456789010 eni-1235b8ca123456789 172.31.16.139 172.31.16.21 20641 22 6',
      '2 123456789010 eni-1 172.31.16.300 172.31.16.21 20641 22 6 20 4249 1418530010 1418530070 ACCEPT OK',
      '2 123456789010 eni-1 172.31.16.139 172.31.16.21 70000 22 6 20 4249 1418530010 1418530070 ACCEPT OK',
      '2 123456789010 eni-1 172.31.16.139 172.31.16.21 20641 22 tcp 20 4249 1418530010 1418530070 ACCEPT OK',
      '2 123456789010 eni-1 172.31.16.139 172.31.16.21 20641 22 6 20 4249 yesterday 1418530070 ACCEPT OK',
    ]);
    expect(results.map((result) => result.kind === 'bad' && result.reason)).toEqual([
      'wrong_field_count',
      'bad_address',
      'bad_port',
      'bad_protocol',
      'bad_time',
    ]);
    expect(results[1]).toMatchObject({ message: 'srcaddr "172.31.16.300" is not an IP address' });
    expect(awsVpcParser().parse('version interface-id srcaddr srcport')).toMatchObject({
      kind: 'bad',
      reason: 'bad_header',
    });
  });

  it('takes flow-direction as ingress, egress or "-" only: anything else is a bad line, not a guess', () => {
    const header =
      'version srcaddr dstaddr srcport dstport protocol start end action log-status flow-direction';
    const line = (direction: string) =>
      `5 10.0.0.62 198.51.100.9 51000 443 6 1566848875 1566848933 ACCEPT OK ${direction}`;
    const [, garbage, unset, upper] = parseAll(awsVpcParser(), [
      header,
      line('sideways'),
      line('-'),
      line('INGRESS'),
    ]);
    expect(garbage).toEqual({
      kind: 'bad',
      reason: 'bad_direction',
      message: 'flow-direction "sideways" is neither ingress nor egress (nor "-")',
    });
    expect(unset).toMatchObject({ kind: 'flow', flow: { destPort: 443 } });
    expect(unset.kind === 'flow' && unset.flow.direction).toBeUndefined();
    expect(upper).toMatchObject({ kind: 'bad', reason: 'bad_direction' });
  });
});
