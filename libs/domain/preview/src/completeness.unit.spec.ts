import { completenessOf } from './completeness';

const nothingLost = {
  deadLettered: [],
  redeliveredEvents: 0,
  trafficDroppedMessages: 0,
  trafficDropUndetermined: 0,
  lag: { pendingMessages: 0 },
};

describe('completenessOf', () => {
  it('is complete when nothing was dead-lettered or dropped and nothing is left to read', () => {
    expect(completenessOf(nothingLost)).toEqual({
      complete: true,
      summary: "Complete: every message of this policy's traffic is counted, none lost.",
      deadLettered: [],
      deadLetteredMessages: 0,
      redeliveredEvents: 0,
      trafficDroppedMessages: 0,
      trafficDropUndetermined: 0,
      lag: { pendingMessages: 0 },
    });
  });

  it('stays complete with redeliveries, and says they were counted once', () => {
    const result = completenessOf({ ...nothingLost, redeliveredEvents: 12 });
    expect(result.complete).toBe(true);
    expect(result.summary).toBe(
      "Complete: every message of this policy's traffic is counted, none lost. 12 events needed a redelivery and were counted once.",
    );
  });

  it('names every loss and unknown, dead letters by reason, most first', () => {
    const result = completenessOf({
      deadLettered: [
        { reason: 'bad_json', messages: 1 },
        { reason: 'invalid_event', messages: 4 },
      ],
      redeliveredEvents: 0,
      trafficDroppedMessages: 30,
      trafficDropUndetermined: 7,
      lag: { pendingMessages: 1, oldestPendingTime: '2026-11-25T10:00:00.000Z' },
    });
    expect(result.complete).toBe(false);
    expect(result.deadLettered).toEqual([
      { reason: 'invalid_event', messages: 4 },
      { reason: 'bad_json', messages: 1 },
    ]);
    expect(result.deadLetteredMessages).toBe(5);
    expect(result.summary).toBe(
      "Incomplete: 5 messages of this policy's traffic were dead-lettered (invalid_event 4, bad_json 1) and are not counted; " +
        'TRAFFIC dropped 30 messages (of every policy) before the evaluator read them; ' +
        'TRAFFIC removed 7 more messages that may have been dropped unread: loss unknown; ' +
        'the evaluator has 1 message left to read (oldest published 2026-11-25T10:00:00.000Z).',
    );
  });

  it('is not complete when the backlog is unknown', () => {
    const { lag: _, ...withoutLag } = nothingLost;
    const result = completenessOf(withoutLag);
    expect(result).toMatchObject({
      complete: false,
      summary: "Incomplete: the evaluator's backlog could not be read: counts may still grow.",
    });
    expect(result).not.toHaveProperty('lag');
  });
});
