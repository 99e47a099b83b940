import { accepted, bytes, rejected, v1Event, v2Event } from '../test/traffic-messages';
import { TrafficDecoder } from './traffic-decoder';
import { fromV2alpha } from './traffic-v2alpha';

const decoder = new TrafficDecoder('ns.traffic.');

describe('TrafficDecoder: by the subject major', () => {
  it('decodes a traffic.v1 event and a traffic.v2alpha batch of the same events to the same events', () => {
    const one = accepted(decoder.decode('ns.traffic.v1.acme.global.web', bytes(v1Event(1))));
    expect(one).toMatchObject({ major: 'v1', key: 'acme.global.web' });
    expect(one.events.map((e) => e.event)).toEqual([v1Event(1)]);

    const batch = accepted(
      decoder.decode(
        'ns.traffic.v2alpha.acme.global.web',
        bytes({ events: [v2Event(1), v2Event(2, { sourcePort: undefined, targetTags: ['web'] })] }),
      ),
    );
    expect(batch).toMatchObject({ major: 'v2alpha', key: 'acme.global.web' });
    const { srcPort: _, ...withoutPort } = v1Event(2);
    expect(batch.events.map((e) => e.event)).toEqual([
      v1Event(1),
      { ...withoutPort, targetTags: ['web'] },
    ]);
    expect(batch.events[0].connection).toEqual(one.events[0].connection);
    expect(batch.events[0].timeMs).toBe(Date.parse('2025-06-01T00:00:00Z'));
  });

  it('maps every v2alpha field to its v1 name, and leaves absent optional fields absent', () => {
    expect(
      fromV2alpha({
        id: 'x',
        time: 't',
        direction: 'EGRESS',
        sourceIp: 'a',
        destinationIp: 'b',
        protocol: 47,
      }),
    ).toEqual({
      id: 'x',
      time: 't',
      direction: 'EGRESS',
      srcIp: 'a',
      destIp: 'b',
      protocol: 47,
    });
  });

  it('refuses an unknown major, and a subject that is no traffic subject', () => {
    for (const major of ['v3', 'v2beta', 'v2alpha2', 'v2']) {
      expect(
        rejected(decoder.decode(`ns.traffic.${major}.acme.global.web`, bytes(v1Event(1)))),
      ).toEqual({
        kind: 'unknown_major',
        reason: `unknown major traffic.${major}: this evaluator reads traffic.v1, traffic.v2alpha`,
      });
    }
    expect(rejected(decoder.decode('ns.traffic.edge.acme.global.web', bytes(v1Event(1))))).toEqual({
      kind: 'bad_subject',
      reason:
        'subject ns.traffic.edge.acme.global.web is not traffic.{major}.{project}.{location}.{firewallPolicy}',
    });
    expect(
      rejected(decoder.decode('ns.traffic.v2alpha.acme.web', bytes({ events: [v2Event(1)] }))),
    ).toEqual({
      kind: 'bad_subject',
      reason:
        'subject ns.traffic.v2alpha.acme.web is not traffic.v2alpha.{project}.{location}.{firewallPolicy}',
    });
  });

  it("refuses a Nats-Msg-Id in another project's namespace, and accepts its own, a bare one or none", () => {
    const refused = rejected(
      decoder.decode('ns.traffic.v1.beta.global.web', bytes(v1Event(1)), undefined, 'acme/evt-1'),
    );
    expect(refused.kind).toBe('foreign_message_id');
    expect(refused.reason).toContain('"acme"\'s namespace, not "beta"\'s');
    for (const id of ['beta/evt-1', 'evt-1', undefined])
      accepted(decoder.decode('ns.traffic.v1.beta.global.web', bytes(v1Event(1)), undefined, id));
  });

  it('refuses a Contract-Version of another package than the subject, and accepts its own at any version', () => {
    expect(
      rejected(
        decoder.decode(
          'ns.traffic.v2alpha.acme.global.web',
          bytes({ events: [v2Event(1)] }),
          'traffic.v1/1.0.0',
        ),
      ),
    ).toEqual({
      kind: 'contract_mismatch',
      reason:
        "Contract-Version traffic.v1/1.0.0 does not match the subject's package traffic.v2alpha",
    });
    expect(
      rejected(
        decoder.decode('ns.traffic.v1.acme.global.web', bytes(v1Event(1)), 'experiment.v1/1.0.0'),
      ).kind,
    ).toBe('contract_mismatch');
    accepted(
      decoder.decode(
        'ns.traffic.v2alpha.acme.global.web',
        bytes({ events: [v2Event(1)] }),
        'traffic.v2alpha/2.0.0-alpha.1',
      ),
    );
    accepted(
      decoder.decode('ns.traffic.v1.acme.global.web', bytes(v1Event(1)), 'traffic.v1/1.4.0'),
    );
    // Not a Contract-Version at all: nothing declared, nothing to contradict.
    accepted(decoder.decode('ns.traffic.v1.acme.global.web', bytes(v1Event(1)), 'garbage'));
  });

  it('refuses a whole v2alpha batch for one bad event, naming its index and field in v2alpha terms', () => {
    const subject = 'ns.traffic.v2alpha.acme.global.web';
    const batch = (bad: unknown) => bytes({ events: [v2Event(1), v2Event(2), bad] });
    expect(
      rejected(decoder.decode(subject, batch(v2Event(3, { sourceIp: '10.0.0.256' })))),
    ).toEqual({
      kind: 'bad_address',
      reason: 'invalid traffic event: events[2].sourceIp "10.0.0.256" is not an IP address',
    });
    expect(
      rejected(decoder.decode(subject, batch(v2Event(3, { destinationIp: 'fe80::1::2' })))),
    ).toEqual({
      kind: 'bad_address',
      reason: 'invalid traffic event: events[2].destinationIp "fe80::1::2" is not an IP address',
    });
    const { id: _, ...withoutId } = v2Event(3);
    expect(rejected(decoder.decode(subject, batch(withoutId)))).toEqual({
      kind: 'invalid_event',
      reason: "invalid traffic event: events[2] must have required property 'id'",
    });
    expect(
      rejected(decoder.decode(subject, batch(v2Event(3, { protocol: 'http' as never })))),
    ).toEqual({
      kind: 'invalid_event',
      reason:
        'invalid traffic event: events[2].protocol must be one of tcp, udp, icmp, icmpv6, sctp, esp, ah or a protocol number 0-255',
    });
    expect(
      rejected(decoder.decode(subject, batch(v2Event(3, { destinationPort: 70000 })))),
    ).toEqual({
      kind: 'invalid_event',
      reason: 'invalid traffic event: events[2].destinationPort must be <= 65535',
    });
    expect(
      rejected(decoder.decode(subject, batch(v2Event(3, { targetTags: ['ok', ''] })))),
    ).toEqual({
      kind: 'invalid_event',
      reason:
        'invalid traffic event: events[2].targetTags[1] must NOT have fewer than 1 characters',
    });
    // v1 field names are not v2alpha's: a v1 event inside a batch is invalid.
    expect(rejected(decoder.decode(subject, batch(v1Event(3)))).reason).toBe(
      "invalid traffic event: events[2] must have required property 'sourceIp'",
    );
  });

  it('refuses a malformed batch envelope', () => {
    const subject = 'ns.traffic.v2alpha.acme.global.web';
    expect(rejected(decoder.decode(subject, bytes('{"events": [')))).toEqual({
      kind: 'bad_json',
      reason: 'traffic event batch is not JSON',
    });
    expect(rejected(decoder.decode(subject, bytes({ events: [] })))).toEqual({
      kind: 'invalid_event',
      reason: 'invalid traffic event batch: batch.events must NOT have fewer than 1 items',
    });
    expect(
      rejected(
        decoder.decode(
          subject,
          bytes({ events: Array.from({ length: 1001 }, (_, i) => v2Event(i % 250)) }),
        ),
      ).reason,
    ).toBe('invalid traffic event batch: batch.events must NOT have more than 1000 items');
    // A v1 event published on the v2alpha subject.
    expect(rejected(decoder.decode(subject, bytes(v1Event(1)))).reason).toBe(
      "invalid traffic event batch: batch must have required property 'events'",
    );
  });

  it('keeps the v1 reasons as they were', () => {
    const subject = 'ns.traffic.v1.acme.global.web';
    expect(rejected(decoder.decode(subject, bytes('not json {')))).toEqual({
      kind: 'bad_json',
      reason: 'traffic event is not JSON',
    });
    expect(rejected(decoder.decode(subject, bytes(v1Event(1, { srcIp: '10.0.0.256' }))))).toEqual({
      kind: 'bad_address',
      reason: 'invalid traffic event: srcIp "10.0.0.256" is not an IP address',
    });
    expect(
      rejected(decoder.decode(subject, bytes(v1Event(1, { protocol: 'http' as never })))).reason,
    ).toMatch(/^invalid traffic event: event.protocol must be one of tcp/);
    expect(rejected(decoder.decode('ns.traffic.v1.acme.web', bytes(v1Event(1)))).reason).toBe(
      'subject ns.traffic.v1.acme.web is not traffic.v1.{project}.{location}.{firewallPolicy}',
    );
  });

  it('refuses bad UTF-8 rather than reading it as U+FFFD, and control characters in an id (Postgres cannot store a NUL)', () => {
    const subject = 'ns.traffic.v1.acme.global.web';
    const json = bytes(v1Event(1, { id: 'e-X' }));
    const broken = new Uint8Array(json);
    broken[json.indexOf('X'.charCodeAt(0))] = 0xff;
    expect(rejected(decoder.decode(subject, broken))).toEqual({
      kind: 'bad_json',
      reason: 'traffic message is not valid UTF-8',
    });
    expect(rejected(decoder.decode(subject, bytes(v1Event(1, { id: 'e-\u0000-1' }))))).toEqual({
      kind: 'invalid_event',
      reason: 'invalid traffic event: id contains control characters',
    });
    const batch = { events: [v2Event(1), v2Event(2, { id: 'e-\r\n' })] };
    expect(
      rejected(decoder.decode('ns.traffic.v2alpha.acme.global.web', bytes(batch))).reason,
    ).toBe('invalid traffic event: events[1].id contains control characters');
  });
});
