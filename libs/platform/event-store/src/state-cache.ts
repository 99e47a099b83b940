/**
 * The last known state of recently used streams, so a command can decide without reading its
 * stream first. Only ever a guess: the command appends with compare-and-set at the cached
 * state's version, so a state gone stale (another replica wrote, another code path appended)
 * makes the append fail instead of writing a wrong decision, and the caller then reads the
 * stream. Enter only states read from the store or appended to it.
 * Bounded by weight (the caller's measure of a state's size, e.g. the length of its JSON):
 * past `maxWeight` in all, the least recently used streams are forgotten.
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
    // A Map iterates in insertion order: re-inserting makes the stream the most recently used.
    this.entries.delete(streamId);
    this.entries.set(streamId, entry);
    return entry.state;
  }

  /** Keeps the later of `state` and the one held: concurrent commands finish in any order. */
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
