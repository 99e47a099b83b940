import { ClaimedWrite, rememberedResponse } from './append-statement';
import type { EventStore } from './event-store';
import type { EventTransaction, StreamReader } from './event-transaction';
import type { EventMetadata, NewEvent } from './events';
import type { StateCache } from './state-cache';

export interface CommandHandlerOptions<S extends { version: number }, E> {
  initialState(streamId: string): S;
  evolve(state: S, event: E): S;
  /** What each event carries for publication: the resource after it (undefined: nothing). */
  published(state: S): unknown;
  /** Last known states, for commands that decide without reading their stream first (see handle). */
  cache?: StateCache<S>;
}

/** What a command decided: its events, and the state before and after them. */
export interface Decision<S, E> {
  before: S;
  events: E[];
  after: S;
}

export interface Answer<R> {
  response: R;
  /** Written with the events (projections...); when there are none to append, written all the same. */
  writes: ClaimedWrite[];
  /** The new state's weight in the cache (e.g. the length of its JSON); without one it is not held. */
  weight?: number;
}

/** The answer to a decision, and what to write with its events. */
export type Answerer<S, E, R> = (decision: Decision<S, E>) => Answer<R> | Promise<Answer<R>>;

/**
 * Commands on the streams of one kind of aggregate (emmett's CommandHandler): rebuild the state
 * (or take the one last seen), decide, and append with compare-and-set at the state's version,
 * together with the answer's writes. `decide` and `evolve` are pure; a decision that throws
 * appends nothing.
 */
export class CommandHandler<S extends { version: number }, E extends NewEvent> {
  constructor(
    private readonly store: EventStore,
    private readonly options: CommandHandlerOptions<S, E>,
  ) {}

  /** Rebuilds a state from its stream (streams are short: tens of events). */
  async load(reader: StreamReader, streamId: string): Promise<S> {
    const events = (await reader.replayStream(streamId)) as E[];
    return events.reduce(this.options.evolve, this.options.initialState(streamId));
  }

  /**
   * A command on one stream, in one statement and no transaction held open. It first decides on
   * the state last seen (the cache), without reading the stream: the append at that state's
   * version wins only if nothing moved the stream since, and writes the answer and remembers it
   * under the request id with it. If that state was stale, or the decision failed or changed
   * nothing, the command runs again on the stream as read, and that run answers; a lost race
   * there is ABORTED. A decision that changes nothing is decided again and answered in a transaction, once per
   * request id. A retried request id needs no look-up first: its append breaks the request id's
   * unique key, and every failure looks the id up before it is raised.
   */
  async handle<R>(
    streamId: string,
    decide: (state: S) => E[],
    answer: Answerer<S, E, R>,
    metadata: EventMetadata,
  ): Promise<R> {
    const { cache } = this.options;
    const known = cache?.get(streamId);
    if (known) {
      const answered = await this.appendAtomically(streamId, known, decide, answer, metadata).catch(
        () => undefined,
      );
      if (answered) return answered.response;
    }
    // Whatever was held is stale or useless now; a successful append below holds the new state.
    cache?.forget(streamId);
    try {
      const state = await this.load(this.store, streamId);
      const answered = await this.appendAtomically(streamId, state, decide, answer, metadata);
      if (answered) return answered.response;
      // Decided again in the transaction: the stream may have moved (even been deleted) since it was read.
      return await this.store.runOnce(metadata.requestId, (tx) =>
        this.handleIn(tx, streamId, decide, answer, metadata),
      );
    } catch (error) {
      const original = await this.store.previousResponse<R>(metadata.requestId);
      if (original !== undefined) return original;
      throw error;
    }
  }

  /**
   * In a transaction (see EventStore.runOnce), a command on one stream: reads it, decides, and
   * appends with the answer's writes. The cache is left alone: a state it holds of the stream
   * fails its next compare-and-set and is read again.
   */
  async handleIn<R>(
    tx: EventTransaction,
    streamId: string,
    decide: (state: S) => E[],
    answer: Answerer<S, E, R>,
    metadata: EventMetadata,
  ): Promise<R> {
    const before = await this.load(tx, streamId);
    return this.append(tx, streamId, before, decide(before), answer, metadata);
  }

  /**
   * In a transaction, appends `events` decided on `before`, read in this transaction before its
   * first append (see EventTransaction.append), with the answer's writes.
   */
  async append<R>(
    tx: EventTransaction,
    streamId: string,
    before: S,
    events: E[],
    answer: Answerer<S, E, R>,
    metadata: EventMetadata,
  ): Promise<R> {
    const { after, stored } = this.evolve(before, events, metadata);
    const { response, writes } = await answer({ before, events, after });
    if (stored.length === 0) await tx.write(writes);
    else await tx.appendAtomically(streamId, before.version, stored, writes);
    return response;
  }

  /** Decides on `before` and appends in one statement; undefined when the decision changes nothing. */
  private async appendAtomically<R>(
    streamId: string,
    before: S,
    decide: (state: S) => E[],
    answer: Answerer<S, E, R>,
    metadata: EventMetadata,
  ): Promise<{ response: R } | undefined> {
    const events = decide(before);
    if (events.length === 0) return undefined;
    const { after, stored } = this.evolve(before, events, metadata);
    const { response, writes, weight } = await answer({ before, events, after });
    const remembered = metadata.requestId ? [rememberedResponse(metadata.requestId, response)] : [];
    await this.store.appendAtomically(streamId, before.version, stored, [...writes, ...remembered]);
    if (weight === undefined) this.options.cache?.forget(streamId);
    else this.options.cache?.remember(streamId, after, weight);
    return { response };
  }

  /** The state after `events`, and the events as stored: each carries the resource after it. */
  private evolve(before: S, events: E[], metadata: EventMetadata) {
    let after = before;
    const stored = events.map((event) => {
      after = this.options.evolve(after, event);
      const published = this.options.published(after);
      return {
        ...event,
        metadata: { ...metadata, ...(published !== undefined ? { state: published } : {}) },
      };
    });
    return { after, stored };
  }
}
