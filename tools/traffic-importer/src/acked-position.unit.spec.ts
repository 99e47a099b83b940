import { AckedPosition } from './acked-position';

describe('the acknowledged position of an input', () => {
  it('moves past skipped lines at once, and past a published line only once it and all before it are acknowledged', () => {
    const tracker = new AckedPosition({ offset: 100, lines: 4 });
    tracker.passed({ offset: 110, lines: 5 });
    expect(tracker.position).toEqual({ offset: 110, lines: 5 });

    const ackSixth = tracker.sent({ offset: 120, lines: 6 });
    const ackSeventh = tracker.sent({ offset: 130, lines: 7 });
    tracker.passed({ offset: 140, lines: 8 });
    expect(tracker.position).toEqual({ offset: 110, lines: 5 });

    // Acknowledged out of order: the seventh alone moves nothing.
    ackSeventh();
    expect(tracker.position).toEqual({ offset: 110, lines: 5 });
    ackSixth();
    expect(tracker.position).toEqual({ offset: 140, lines: 8 });
  });

  it('stays before a publish that is never acknowledged (refused), whatever comes after', () => {
    const tracker = new AckedPosition();
    tracker.sent({ offset: 10, lines: 1 })();
    tracker.sent({ offset: 20, lines: 2 });
    tracker.sent({ offset: 30, lines: 3 })();
    tracker.passed({ offset: 40, lines: 4 });
    expect(tracker.position).toEqual({ offset: 10, lines: 1 });
  });
});
