/**
 * The last known state of recently used streams, so a command can decide without reading its
 * stream first. Only ever a guess: the command appends with compare-and-set at the cached
 * state's version, so a state gone stale (another replica wrote, another code path appended)
 * makes the append fail instead of writing a wrong decision, and the caller then reads the
 * stream. Enter only states read from the store or appended to it.
 * Bounded: past `capacity` streams, the least recently used are forgotten.
 */
export class StateCache<S extends { version: number }> {
  private readonly states = new Map<string, S>();

  constructor(private readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new Error(`StateCache capacity must be a positive integer, got ${capacity}`);
  }

  get size(): number {
    return this.states.size;
  }

  get(streamId: string): S | undefined {
    const state = this.states.get(streamId);
    if (state !== undefined) this.touch(streamId, state);
    return state;
  }

  /** Keeps the later of `state` and the one held: concurrent commands finish in any order. */
  remember(streamId: string, state: S): void {
    const held = this.states.get(streamId);
    if (held !== undefined && held.version > state.version) return;
    this.touch(streamId, state);
    if (this.states.size > this.capacity) this.states.delete(this.states.keys().next().value as string);
  }

  forget(streamId: string): void {
    this.states.delete(streamId);
  }

  /** A Map iterates in insertion order: re-inserting makes the stream the most recently used. */
  private touch(streamId: string, state: S): void {
    this.states.delete(streamId);
    this.states.set(streamId, state);
  }
}
