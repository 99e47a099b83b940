/**
 * Only a guess: the command appends with compare-and-set at the cached version, so a stale
 * state fails the append instead of writing a wrong decision. Enter only states read from or
 * appended to the store. Bounded by the caller's weight (e.g. JSON length), LRU.
 */
export class StateCache<S extends { version: number }> {
  private readonly entries = new Map<string, { state: S; weight: number }>();
  private held = 0;

  constructor(private readonly maxWeight: number) {
    if (!(maxWeight > 0))
      throw new Error(`StateCache maxWeight must be positive, got ${maxWeight}`);
  }

  get weight(): number {
    return this.held;
  }

  get(streamId: string): S | undefined {
    const entry = this.entries.get(streamId);
    if (entry === undefined) return undefined;
    this.entries.delete(streamId);
    this.entries.set(streamId, entry);
    return entry.state;
  }

  /** Keeps the later: concurrent commands finish in any order. */
  remember(streamId: string, state: S, weight: number): void {
    const entry = this.entries.get(streamId);
    if (entry !== undefined && entry.state.version > state.version) return;
    this.forget(streamId);
    if (weight > this.maxWeight) return;
    this.entries.set(streamId, { state, weight });
    this.held += weight;
    for (const [oldest, { weight: oldestWeight }] of this.entries) {
      if (this.held <= this.maxWeight) break;
      this.entries.delete(oldest);
      this.held -= oldestWeight;
    }
  }

  forget(streamId: string): void {
    const entry = this.entries.get(streamId);
    if (entry === undefined) return;
    this.entries.delete(streamId);
    this.held -= entry.weight;
  }
}
