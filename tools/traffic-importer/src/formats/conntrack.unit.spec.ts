import { conntrackParser } from './conntrack';

/** Entries as conntrack(8) prints them (the conntrack-tools manual and `conntrack -L` / `-E`). */
describe('Linux conntrack (-L and -E)', () => {
  it('reads a listing entry, -o extended or not: the original tuple is the connection, with no time', () => {
    const parser = conntrackParser();
    const plain = parser.parse(
      'tcp      6 431999 ESTABLISHED src=192.168.2.100 dst=123.59.27.117 sport=34846 dport=993 src=123.59.27.117 dst=192.168.2.100 sport=993 dport=34846 [ASSURED] mark=0 use=1',
    );
    expect(plain).toEqual({
      kind: 'flow',
      flow: {
        srcIp: '192.168.2.100',
        destIp: '123.59.27.117',
        protocol: 'tcp',
        srcPort: 34846,
        destPort: 993,
      },
    });
    const extended = parser.parse(
      'ipv4     2 udp      17 29 src=10.0.0.5 dst=10.0.0.53 sport=41000 dport=53 [UNREPLIED] src=10.0.0.53 dst=10.0.0.5 sport=53 dport=41000 mark=0 zone=0 use=2',
    );
    expect(extended).toEqual({
      kind: 'flow',
      flow: {
        srcIp: '10.0.0.5',
        destIp: '10.0.0.53',
        protocol: 'udp',
        srcPort: 41000,
        destPort: 53,
      },
    });
    const v6 = parser.parse(
      'ipv6     10 tcp      6 118 SYN_SENT src=2001:db8::1 dst=2001:db8::2 sport=50000 dport=443 [UNREPLIED] src=2001:db8::2 dst=2001:db8::1 sport=443 dport=50000 mark=0 use=1',
    );
    expect(v6).toMatchObject({ flow: { srcIp: '2001:db8::1', destPort: 443 } });
    const icmp = parser.parse(
      'icmp     1 29 src=10.0.0.1 dst=10.0.0.2 type=8 code=0 id=4242 src=10.0.0.2 dst=10.0.0.1 type=0 code=0 id=4242 mark=0 use=1',
    );
    expect(icmp).toEqual({
      kind: 'flow',
      flow: { srcIp: '10.0.0.1', destIp: '10.0.0.2', protocol: 'icmp' },
    });
  });

  it('reads [NEW] events, with -o timestamp and -o extended, and skips UPDATE and DESTROY', () => {
    const parser = conntrackParser();
    expect(
      parser.parse(
        '    [NEW] tcp      6 120 SYN_SENT src=10.0.0.5 dst=93.184.216.34 sport=52000 dport=80 [UNREPLIED] src=93.184.216.34 dst=10.0.0.5 sport=80 dport=52000',
      ),
    ).toEqual({
      kind: 'flow',
      flow: {
        srcIp: '10.0.0.5',
        destIp: '93.184.216.34',
        protocol: 'tcp',
        srcPort: 52000,
        destPort: 80,
      },
    });
    expect(
      parser.parse(
        '[1437560148.285227]\t    [NEW] ipv4     2 udp      17 30 src=10.0.0.5 dst=10.0.0.53 sport=41000 dport=53 [UNREPLIED] src=10.0.0.53 dst=10.0.0.5 sport=53 dport=41000',
      ),
    ).toEqual({
      kind: 'flow',
      flow: {
        time: new Date(1437560148_285),
        srcIp: '10.0.0.5',
        destIp: '10.0.0.53',
        protocol: 'udp',
        srcPort: 41000,
        destPort: 53,
      },
    });
    expect(
      parser.parse(
        ' [UPDATE] tcp      6 60 SYN_RECV src=10.0.0.5 dst=93.184.216.34 sport=52000 dport=80 src=93.184.216.34 dst=10.0.0.5 sport=80 dport=52000',
      ),
    ).toEqual({ kind: 'skip', reason: 'UPDATE' });
    expect(
      parser.parse(
        '[DESTROY] udp      17 src=10.0.0.5 dst=10.0.0.53 sport=41000 dport=53 src=10.0.0.53 dst=10.0.0.5 sport=53 dport=41000',
      ),
    ).toEqual({ kind: 'skip', reason: 'DESTROY' });
    expect(
      parser.parse('conntrack v1.4.6 (conntrack-tools): 42 flow entries have been shown.'),
    ).toEqual({ kind: 'skip', reason: 'summary' });
  });

  it('reports bad lines: not an entry, no addresses, a bad address', () => {
    const parser = conntrackParser();
    expect(parser.parse('hello world')).toMatchObject({ kind: 'bad', reason: 'bad_entry' });
    expect(parser.parse('tcp      6 431999 ESTABLISHED sport=1 dport=2')).toMatchObject({
      kind: 'bad',
      reason: 'missing_field',
    });
    expect(
      parser.parse('tcp      6 431999 ESTABLISHED src=10.0.0.999 dst=10.0.0.2 sport=1 dport=2'),
    ).toMatchObject({ kind: 'bad', reason: 'bad_address' });
  });

  it('rejects a TCP or UDP entry without dport= or sport= (a cut line), naming what is missing', () => {
    const parser = conntrackParser();
    expect(
      parser.parse('tcp      6 431999 ESTABLISHED src=10.0.0.1 dst=10.0.0.2 sport=40000 [ASSURED]'),
    ).toEqual({ kind: 'bad', reason: 'missing_field', message: 'a tcp entry without dport=' });
    expect(parser.parse('udp      17 29 src=10.0.0.1 dst=10.0.0.53 dport=53')).toEqual({
      kind: 'bad',
      reason: 'missing_field',
      message: 'a udp entry without sport=',
    });
    // ICMP has no ports: its entry is complete without them.
    expect(
      parser.parse('icmp     1 29 src=10.0.0.1 dst=10.0.0.2 type=8 code=0 id=1'),
    ).toMatchObject({ kind: 'flow', flow: { protocol: 'icmp' } });
  });
});
