import { DEAD_LETTER_REASON_HEADER } from '@rollout/platform/nats';
import { DEAD_LETTER_STREAM } from '@rollout/contracts';
import { eventually } from '@rollout/testing/kit';
import { TEST_ACTOR, dellEvent } from '../../test/inspection-event-stream';
import { inspectionRulesServiceSystem } from '../../test/inspection-rules-service-system';
import { RuleCommands } from '../rules/rule-commands.application';

describe('given inspection events over JetStream, when one comes again or is malformed, then each id has one result and bad ones are dead-lettered', () => {
  const stream = inspectionRulesServiceSystem();

  it('publishes one result per event id, even when the event comes again after the rules changed', async () => {
    await stream.publish('main', dellEvent('evt-again'), 'evt-again');
    const first = await stream.resultOf('evt-again');
    await stream.apps.app
      .get(RuleCommands)
      .create({ priority: 100, actions: [{ op: 'fail', args: ['no more Dells'] }] }, TEST_ACTOR);
    // A redelivery past the stream's duplicate window arrives as a new message with the same event id.
    const seq = await stream.publish('main', dellEvent('evt-again'), 'evt-again-redelivered');
    await stream.settled(seq);
    const all = (await stream.results()).filter((r) => r.eventId === 'evt-again');
    expect(all).toEqual([first]);
    // A new event does see the new rule, and a fail stops the rules after it.
    await stream.publish('main', dellEvent('evt-after'), 'evt-after');
    const after = await stream.resultOf('evt-after');
    expect(after.failed).toBe('no more Dells');
    expect(after.node_patch).toEqual([]);
  });

  it('dead-letters malformed events with the reason, and keeps consuming', async () => {
    await stream.publish('main', 'not json {');
    await stream.publish('main', { node: {}, ports: 'nope' });
    // Bad UTF-8 in an id: not read as U+FFFD (which would make two ids one).
    await stream.publish(
      'main',
      Buffer.concat([Buffer.from('{"id":"evt-'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]),
    );
    // NUL in an id: refused up front, rather than failing to store five times.
    await stream.publish('main', { id: 'evt-\u0000' });
    // An unpaired surrogate in an id (`"\ud800"` in the JSON): refused, not stored as U+FFFD.
    await stream.publish('main', '{"id":"evt-\\ud800"}');
    const letters = await eventually(
      async () => {
        const jsm = await stream.nc.jetstreamManager();
        const info = await jsm.streams
          .info(stream.ns.stream(DEAD_LETTER_STREAM.name))
          .catch(() => undefined);
        if (!info || info.state.messages < 5) return undefined;
        const reasons: string[] = [];
        for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
          const stored = await jsm.streams.getMessage(stream.ns.stream(DEAD_LETTER_STREAM.name), {
            seq,
          });
          reasons.push(stored.header.get(DEAD_LETTER_REASON_HEADER));
        }
        return reasons;
      },
      { what: 'five dead letters' },
    );
    expect(letters[0]).toBe('inspection event is not JSON');
    expect(letters[1]).toMatch(/invalid inspection event: .*id.*ports/);
    expect(letters[2]).toBe('inspection event is not UTF-8');
    expect(letters[3]).toBe('invalid inspection event: id: must not contain control characters');
    expect(letters[4]).toBe(
      'invalid inspection event: id: must not contain an unpaired UTF-16 surrogate',
    );
    await stream.publish('main', { ...dellEvent('evt-later'), node: { auto_discovered: false } });
    expect((await stream.resultOf('evt-later')).eventId).toBe('evt-later');
  });
});
