/** Pure arithmetic on the caller's times, so tests need no clock. */
export class PublishSchedule {
  private rateCursorMs = -Infinity;
  private firstRecordMs?: number;
  private firstWallMs = 0;

  constructor(private readonly options: { ratePerSecond?: number; speed?: number }) {}

  delayMs(nowMs: number, recordMs: number | undefined): number {
    let due = nowMs;
    const { speed, ratePerSecond } = this.options;
    if (speed !== undefined && recordMs !== undefined) {
      if (this.firstRecordMs === undefined) {
        this.firstRecordMs = recordMs;
        this.firstWallMs = nowMs;
      }
      due = Math.max(due, this.firstWallMs + (recordMs - this.firstRecordMs) / speed);
    }
    if (ratePerSecond !== undefined) {
      due = Math.max(due, this.rateCursorMs);
      this.rateCursorMs = due + 1000 / ratePerSecond;
    }
    return due - nowMs;
  }
}
