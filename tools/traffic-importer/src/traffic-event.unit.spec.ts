import { TRAFFIC_EVENT_ID_MAX_LENGTH } from '@rollout/contracts';
import { createHash } from 'node:crypto';
import { eventId, trafficEvent } from './traffic-event';

const KEY = Buffer.alloc(32, 7);

describe('traffic events from flow records', () => {
  const flow = {
    time: new Date('2023-01-31T20:05:16.803Z'),
    srcIp: '35.235.241.17',
    destIp: '10.128.0.2',
    protocol: 'tcp' as const,
    srcPort: 45118,
    destPort: 22,
  };

  it('derives the id from the subject, the format and the record, and from the round and salt of a replay', () => {
    const id = eventId(KEY, 'traffic.v1.acme.global.edge', 'zeek', 'line 1');
    expect(id).toMatch(/^flow-[A-Za-z0-9_-]{32}$/);
    expect(id.length).toBeLessThanOrEqual(TRAFFIC_EVENT_ID_MAX_LENGTH);
    expect(eventId(KEY, 'traffic.v1.acme.global.edge', 'zeek', 'line 1')).toBe(id);
    expect(eventId(KEY, 'traffic.v1.acme.global.edge', 'zeek', 'line 1', 0)).toBe(id);
    const others = [
      eventId(KEY, 'traffic.v1.acme.global.edge', 'zeek', 'line 2'),
      eventId(KEY, 'traffic.v1.acme.global.other', 'zeek', 'line 1'),
      eventId(KEY, 'traffic.v1.acme.global.edge', 'zeek-json', 'line 1'),
      eventId(KEY, 'traffic.v1.acme.global.edge', 'zeek', 'line 1', 1),
      eventId(KEY, 'traffic.v1.acme.global.edge', 'zeek', 'line 1', 0, 'run-2'),
      eventId(KEY, 'traffic.v1.acme.global.edge', 'zeek', 'line 1', 1, 'run-2'),
    ];
    expect(new Set([id, ...others]).size).toBe(7);
  });

  it("keys the id with the installation's secret: nobody without it can compute a record's id", () => {
    const id = eventId(KEY, 'traffic.v1.acme.global.edge', 'zeek', 'line 1');
    expect(eventId(Buffer.alloc(32, 8), 'traffic.v1.acme.global.edge', 'zeek', 'line 1')).not.toBe(
      id,
    );
    // Not the plain hash of what a producer could guess.
    const unsalted = `flow-${createHash('sha256').update('traffic.v1.acme.global.edge\nzeek\nline 1').digest('base64url').slice(0, 32)}`;
    expect(id).not.toBe(unsalted);
  });

  it("carries the source's tags, and leaves an empty list out", () => {
    const options = {
      id: 'e1',
      defaultDirection: 'INGRESS' as const,
      now: new Date(),
      restamp: false,
    };
    expect(
      trafficEvent({ ...flow, srcSecureTags: ['k8s:app=api'] }, options).srcSecureTags,
    ).toEqual(['k8s:app=api']);
    expect(trafficEvent({ ...flow, srcSecureTags: [] }, options)).not.toHaveProperty(
      'srcSecureTags',
    );
  });

  it("keeps the record's time and direction, or takes the defaults", () => {
    const now = new Date('2026-11-25T10:00:00Z');
    expect(
      trafficEvent(
        { ...flow, direction: 'EGRESS' },
        { id: 'e1', defaultDirection: 'INGRESS', now, restamp: false },
      ),
    ).toEqual({
      id: 'e1',
      time: '2023-01-31T20:05:16.803Z',
      direction: 'EGRESS',
      srcIp: '35.235.241.17',
      destIp: '10.128.0.2',
      protocol: 'tcp',
      srcPort: 45118,
      destPort: 22,
    });
    expect(
      trafficEvent(
        { srcIp: '10.0.0.1', destIp: '10.0.0.2', protocol: 'icmp' },
        { id: 'e2', defaultDirection: 'EGRESS', now, restamp: false },
      ),
    ).toEqual({
      id: 'e2',
      time: '2026-11-25T10:00:00.000Z',
      direction: 'EGRESS',
      srcIp: '10.0.0.1',
      destIp: '10.0.0.2',
      protocol: 'icmp',
    });
    expect(
      trafficEvent(flow, { id: 'e3', defaultDirection: 'INGRESS', now, restamp: true }).time,
    ).toBe('2026-11-25T10:00:00.000Z');
  });
});
