import { foreignTrafficMessageId, trafficMessageId } from './message-id';

describe('traffic message ids', () => {
  it("put the id in its project's namespace, so two projects' same event id are two ids", () => {
    expect(trafficMessageId('acme', 'evt-1')).toBe('acme/evt-1');
    expect(trafficMessageId('acme', 'evt-1')).not.toBe(trafficMessageId('beta', 'evt-1'));
    // An id may contain "/" itself: the project is everything before the first one.
    expect(foreignTrafficMessageId('acme', trafficMessageId('acme', 'host/1'))).toBeUndefined();
  });

  it("refuses an id in another project's namespace than the subject's", () => {
    expect(foreignTrafficMessageId('beta', 'acme/evt-1')).toBe(
      'Nats-Msg-Id "acme/evt-1" is in project "acme"\'s namespace, not "beta"\'s (the subject\'s): use "beta/<id>"',
    );
    expect(foreignTrafficMessageId('acme', 'acme-2/evt-1')).toBeDefined();
    expect(foreignTrafficMessageId('acme', '/evt-1')).toBeDefined();
  });

  it('accepts a bare id, as producers written before namespaces set, and no id', () => {
    expect(foreignTrafficMessageId('acme', 'evt-1')).toBeUndefined();
    expect(foreignTrafficMessageId('acme', undefined)).toBeUndefined();
  });
});
