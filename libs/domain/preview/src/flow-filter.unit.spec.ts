import { parseFlowFilter } from './flow-filter';

const terms = (text: string) => {
  const parsed = parseFlowFilter(text);
  if ('error' in parsed) throw new Error(parsed.error);
  return parsed.terms;
};
const error = (text: string) => {
  const parsed = parseFlowFilter(text);
  return 'error' in parsed ? parsed.error : undefined;
};

describe('previewFlows filter (AIP-160 subset)', () => {
  it('reads a conjunction of terms, bare or quoted, with spaces or without', () => {
    expect(
      terms(
        'transition = ALLOW_TO_DENY AND ip = "10.0.0.0/8" AND destPort>=1024 AND destPort <= 2048',
      ),
    ).toEqual([
      { field: 'transition', op: '=', value: 'ALLOW_TO_DENY' },
      { field: 'ip', op: '=', value: '10.0.0.0/8' },
      { field: 'destPort', op: '>=', value: 1024 },
      { field: 'destPort', op: '<=', value: 2048 },
    ]);
    expect(terms('')).toEqual([]);
    expect(terms('   ')).toEqual([]);
    expect(terms('experimentEtag = "W/\\"2\\""')).toEqual([
      { field: 'experimentEtag', op: '=', value: 'W/"2"' },
    ]);
  });

  it('normalises addresses, ranges and protocols to what the store holds', () => {
    expect(
      terms('srcIp = 10.0.1.5 AND destIp != 2001:DB8::/32 AND protocol = 6 AND ip : 192.0.2.0/24'),
    ).toEqual([
      { field: 'srcIp', op: '=', value: '10.0.1.5/32' },
      { field: 'destIp', op: '!=', value: '2001:db8:0:0:0:0:0:0/32' },
      { field: 'protocol', op: '=', value: 'tcp' },
      { field: 'ip', op: '=', value: '192.0.2.0/24' },
    ]);
    expect(terms('ip = 10.1.2.3/8 AND destIp = 2001:db8::1:2/112')).toEqual([
      { field: 'ip', op: '=', value: '10.0.0.0/8' },
      { field: 'destIp', op: '=', value: '2001:db8:0:0:0:0:1:0/112' },
    ]);
    expect(terms('protocol = UDP AND protocol != 47')).toEqual([
      { field: 'protocol', op: '=', value: 'udp' },
      { field: 'protocol', op: '!=', value: '47' },
    ]);
  });

  it('takes rule priorities and the implied rule', () => {
    expect(terms('liveRule = implied AND experimentRule < 100')).toEqual([
      { field: 'liveRule', op: '=', value: -1 },
      { field: 'experimentRule', op: '<', value: 100 },
    ]);
  });

  it('says what is wrong, and where', () => {
    expect(error('colour = red')).toMatch(/^unknown field colour/);
    expect(error('destPort = 70000')).toBe('destPort must be a port 0-65535, not "70000"');
    expect(error('ip = 10.0.0.256')).toBe(
      'ip must be an IP address or a CIDR range, not "10.0.0.256"',
    );
    expect(error('ip = 10.0.0.0/33')).toBe(
      'ip must be an IP address or a CIDR range, not "10.0.0.0/33"',
    );
    expect(error('transition = SOMETIMES')).toBe(
      'transition must be ALLOW_TO_DENY or DENY_TO_ALLOW, not "SOMETIMES"',
    );
    expect(error('transition > ALLOW_TO_DENY')).toBe('transition takes = or != only');
    expect(error('liveRule > implied')).toBe('liveRule compares with implied by = or != only');
    expect(error('destPort = 22 OR destPort = 23')).toBe(
      'expected AND at position 15 (terms are joined by AND)',
    );
    expect(error('destPort 22')).toBe('expected an operator (=, !=, <, <=, >, >=) after destPort');
    expect(error('experimentEtag = "open')).toBe('unterminated quoted value for experimentEtag');
    expect(error('destPort =')).toBe('expected a value after destPort =');
    expect(error('= 22')).toBe('expected a field name at position 1');
    expect(error(`experimentEtag = "${'x'.repeat(2000)}"`)).toBe(
      'filter is longer than 2000 characters',
    );
  });
});
