import { isIP } from 'node:net';
import { parseAddress, parseRange } from './address';

const hex = (a: ReturnType<typeof parseAddress>) =>
  a &&
  [a.w0, a.w1, a.w2, a.w3]
    .map((w) => w.toString(16).padStart(8, '0'))
    .join(a.family === 4 ? '' : ':');

describe('parseAddress', () => {
  it.each([
    ['0.0.0.0', 4, '00000000000000000000000000000000'],
    ['255.255.255.255', 4, 'ffffffff000000000000000000000000'],
    ['192.0.2.7', 4, 'c0000207000000000000000000000000'],
    ['::', 6, '00000000:00000000:00000000:00000000'],
    ['::1', 6, '00000000:00000000:00000000:00000001'],
    ['1::', 6, '00010000:00000000:00000000:00000000'],
    ['2001:db8::8a2e:370:7334', 6, '20010db8:00000000:00008a2e:03707334'],
    ['2001:DB8:0:0:1:0:0:1', 6, '20010db8:00000000:00010000:00000001'],
    ['ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 6, 'ffffffff:ffffffff:ffffffff:ffffffff'],
    ['::ffff:192.0.2.1', 4, 'c0000201000000000000000000000000'],
    ['::ffff:c000:201', 4, 'c0000201000000000000000000000000'],
    ['::fffe:192.0.2.1', 6, '00000000:00000000:0000fffe:c0000201'],
    ['1:2:3:4:5:6:1.2.3.4', 6, '00010002:00030004:00050006:01020304'],
    ['fe80::1%eth0', 6, 'fe800000:00000000:00000000:00000001'],
    ['::%eth0', 6, '00000000:00000000:00000000:00000000'],
    ['1:2:3:4:5:6:7::', 6, '00010002:00030004:00050006:00070000'],
    ['::2:3:4:5:6:7:8', 6, '00000002:00030004:00050006:00070008'],
  ])('reads %s', (text, family, words) => {
    const parsed = parseAddress(text);
    expect(parsed?.family).toBe(family);
    expect(hex(parsed)).toBe(words);
  });

  it.each([
    '',
    '1.2.3',
    '1.2.3.4.5',
    '1.2.3.256',
    '01.2.3.4',
    ' 1.2.3.4',
    '1.2.3.4 ',
    '1..2.3',
    '1:2:3:4:5:6:7:8:9',
    '1::2::3',
    ':1',
    '1:',
    '12345::',
    '1:2:3:4:5:6:7:1.2.3.4',
    'fe80::1%',
    'g::1',
    'example.com',
  ])('refuses %j', (text) => {
    expect(parseAddress(text)).toBeUndefined();
  });

  it('accepts exactly what net.isIP accepts, over thousands of near-miss strings', () => {
    // Mutations of valid addresses: the places where a hand-written parser goes wrong.
    const seeds = [
      '192.0.2.7',
      '10.0.0.1',
      '2001:db8::1',
      '::ffff:1.2.3.4',
      '1:2:3:4:5:6:7:8',
      '::',
      'fe80::a%en0',
      '::%eth0',
      '::ffff:1.2.3.4%x',
      '1::2:3',
      'abcd:ef01::2345:6789',
    ];
    const alphabet = [
      '',
      '0',
      '1',
      '9',
      'a',
      'f',
      'g',
      ':',
      '::',
      '.',
      '%',
      '/',
      ' ',
      '255',
      '256',
      '00',
      'ffff',
      '12345',
    ];
    let state = 7;
    const random = (n: number) => (
      (state = (Math.imul(state, 1103515245) + 12345) >>> 0),
      state % n
    );
    let checked = 0;
    for (let i = 0; i < 20_000; i++) {
      let text = seeds[random(seeds.length)];
      for (let m = 1 + random(2); m > 0; m--) {
        const at = random(text.length + 1);
        text = text.slice(0, at) + alphabet[random(alphabet.length)] + text.slice(at + random(3));
      }
      // An IPv4-mapped address is read as IPv4; net.isIP calls it IPv6. Validity is what must agree.
      const parsed = parseAddress(text);
      expect([text, parsed !== undefined]).toEqual([text, isIP(text) !== 0]);
      if (parsed?.family === 4 && isIP(text) === 6)
        expect(text.toLowerCase()).toMatch(/^(0{0,4}:){0,5}:?ffff:/);
      checked++;
    }
    expect(checked).toBe(20_000);
  });
});

describe('parseRange', () => {
  it('turns a CIDR into its first and last address', () => {
    expect(parseRange('10.0.0.0/8')).toEqual({ family: 4, first: 0x0a000000n, last: 0x0affffffn });
    expect(parseRange('2001:db8::/32')).toEqual({
      family: 6,
      first: 0x20010db8n << 96n,
      last: (0x20010db8n << 96n) | ((1n << 96n) - 1n),
    });
  });

  it('reads a plain address as a single-address range and clears host bits below the prefix', () => {
    expect(parseRange('192.0.2.7')).toEqual({ family: 4, first: 0xc0000207n, last: 0xc0000207n });
    expect(parseRange('192.0.2.7/24')).toEqual({
      family: 4,
      first: 0xc0000200n,
      last: 0xc00002ffn,
    });
    expect(parseRange('0.0.0.0/0')).toEqual({ family: 4, first: 0n, last: 0xffffffffn });
  });

  it('reads a range inside ::ffff:0:0/96 as the IPv4 range it maps, and a shorter prefix as IPv6', () => {
    expect(parseRange('::ffff:10.0.0.0/104')).toEqual({
      family: 4,
      first: 0x0a000000n,
      last: 0x0affffffn,
    });
    expect(parseRange('::ffff:192.0.2.7')).toEqual({
      family: 4,
      first: 0xc0000207n,
      last: 0xc0000207n,
    });
    expect(parseRange('::ffff:0:0/96')).toEqual({ family: 4, first: 0n, last: 0xffffffffn });
    expect(parseRange('::/64')?.family).toBe(6);
  });

  it.each(['10.0.0.0/33', '::/129', '10.0.0.0/', '10.0.0.0/8/8', '10.0.0/8', 'x/8'])(
    'refuses %j',
    (text) => {
      expect(parseRange(text)).toBeUndefined();
    },
  );
});
