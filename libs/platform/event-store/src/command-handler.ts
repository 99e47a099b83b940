import { ClaimedWrite, StoredEventInput, answerJson, rememberedAnswer } from './event-statements';
import type { EventStore } from './event-store';
import type { EventTransaction, StreamReader } from './event-transaction';
import type { EventMetadata, NewEvent } from './events';
import type { StateCache } from './state-cache';

/**
 * One kind of aggregate, registered once with its command handler: the decider (initial state,
 * decide, evolve), the resource its state shows, and its projection.
 */
export interface Aggregate<S extends { version: number }, C, E extends NewEvent, V, R> {
  initialState(streamId: string): S;
  /** Pure; a decision that throws appends nothing. */
  decide(command: C, state: S): E[];
  evolve(state: S, event: E): S;
  /** The resource a state shows (undefined: none), published with each event. */
  view(state: S): V | undefined;
  /** What a decided command answers, and the writes that go with its events (see Projected). */
  project(decided: Decided<S, C, E, V>): Projected<R> | Promise<Projected<R>>;
  /** Last known states, for commands that decide without reading their stream first (see handle). */
  cache?: StateCache<S>;
}

/** A command, the events it decided, and the state before and after them. */
export interface Decided<S, C, E, V> {
  command: C;
  before: S;
  events: E[];
  after: S;
  /** The resource after the command, built once, and its JSON, serialized once for every write. */
  view: V | undefined;
  resource: string | undefined;
}

export interface Projected<R> {
  response: R;
  /** Written with the events (the projection); when there are none to append, written all the same. */
  writes: ClaimedWrite[];
  /** The answer's JSON as SQL, when it can be built on `resource`; by default the response serialized. */
  answer?: ClaimedWrite;
}

/**
 * Commands on the streams of one kind of aggregate (emmett's CommandHandler): rebuild the state
 * (or take the one last seen), decide, project, and append with compare-and-set at the state's
 * version, together with the projection's writes and the answer.
 */
export class CommandHandler<S extends { version: number }, C, E extends NewEvent, V, R> {
  constructor(
    private readonly store: EventStore,
    private readonly aggregate: Aggregate<S, C, E, V, R>,
  ) {}

  /** Rebuilds a state from its stream (streams are short: tens of events). */
  async load(reader: StreamReader, streamId: string): Promise<S> {
    const events = (await reader.replayStream(streamId)) as E[];
    return events.reduce(this.aggregate.evolve, this.aggregate.initialState(streamId));
  }

  /** The events `command` decides on `state` (for commands over several streams: see append). */
  decide(command: C, state: S): E[] {
    return this.aggregate.decide(command, state);
  }

  /**
   * A command on one stream, in one statement and no transaction held open. It first decides on
   * the state last seen (the cache), without reading the stream: the append at that state's
   * version wins only if nothing moved the stream since, and writes the projection and keeps the
   * answer with it. If that state was stale, or the decision failed or changed nothing, the
   * command runs again on the stream as read, and that run answers; a lost race there is ABORTED.
   * A decision that changes nothing is decided again and answered in a transaction, once per
   * request id. A retried request id needs no look-up first: its append breaks the request id's
   * unique key, and every failure looks the id up before it is raised.
   */
  async handle(streamId: string, command: C, metadata: EventMetadata): Promise<R> {
    const { cache } = this.aggregate;
    const known = cache?.get(streamId);
    if (known) {
      const answered = await this.appendAtomically(streamId, known, command, metadata).catch(
        () => undefined,
      );
      if (answered) return answered.response;
    }
    // Whatever was held is stale or useless now; a successful append below holds the new state.
    cache?.forget(streamId);
    try {
      const state = await this.load(this.store, streamId);
      const answered = await this.appendAtomically(streamId, state, command, metadata);
      if (answered) return answered.response;
      // Decided again in the transaction: the stream may have moved (even been deleted) since it was read.
      return await this.store.runOnce(metadata.requestId, (tx) =>
        this.handleIn(tx, streamId, command, metadata),
      );
    } catch (error) {
      const original = await this.store.previousResponse<R>(metadata.requestId);
      if (original !== undefined) return original;
      throw error;
    }
  }

  /**
   * In a transaction (see EventStore.runOnce, which keeps the answer), a command on one stream:
   * reads it, decides, and appends with the projection's writes. The cache is left alone: a
   * state it holds of the stream fails its next compare-and-set and is read again.
   */
  async handleIn(
    tx: EventTransaction,
    streamId: string,
    command: C,
    metadata: EventMetadata,
  ): Promise<R> {
    const before = await this.load(tx, streamId);
    return this.append(
      tx,
      streamId,
      before,
      this.aggregate.decide(command, before),
      command,
      metadata,
    );
  }

  /**
   * In a transaction, appends `events`, decided for `command` on `before` (read in this
   * transaction before its first append, see EventTransaction.appendAtomically), with the projection's writes.
   */
  async append(
    tx: EventTransaction,
    streamId: string,
    before: S,
    events: E[],
    command: C,
    metadata: EventMetadata,
  ): Promise<R> {
    const { decided, stored } = this.evolve(command, before, events, metadata);
    const { response, writes } = await this.aggregate.project(decided);
    if (stored.length === 0) await tx.write(writes);
    else await tx.appendAtomically(streamId, before.version, stored, writes);
    return response;
  }

  /** Decides on `before` and appends in one statement; undefined when the decision changes nothing. */
  private async appendAtomically(
    streamId: string,
    before: S,
    command: C,
    metadata: EventMetadata,
  ): Promise<{ response: R } | undefined> {
    const events = this.aggregate.decide(command, before);
    if (events.length === 0) return undefined;
    const { decided, stored } = this.evolve(command, before, events, metadata);
    const { response, writes, answer } = await this.aggregate.project(decided);
    const name = this.store.answerName(response);
    const key = metadata.requestId ?? name;
    const kept = key ? [rememberedAnswer(key, name, answer ?? answerJson(response))] : [];
    await this.store.appendAtomically(streamId, before.version, stored, [...writes, ...kept]);
    const { cache } = this.aggregate;
    if (decided.resource === undefined) cache?.forget(streamId);
    else cache?.remember(streamId, decided.after, decided.resource.length);
    return { response };
  }

  /** The state after `events`, and the events as stored: each carries the resource after it. */
  private evolve(command: C, before: S, events: E[], metadata: EventMetadata) {
    let after = before;
    let view: V | undefined;
    let resource: string | undefined;
    const stored: StoredEventInput[] = events.map((event) => {
      after = this.aggregate.evolve(after, event);
      view = this.aggregate.view(after);
      resource = view === undefined ? undefined : JSON.stringify(view);
      return { ...event, metadata, ...(resource !== undefined ? { state: resource } : {}) };
    });
    if (events.length === 0) {
      view = this.aggregate.view(before);
      resource = view === undefined ? undefined : JSON.stringify(view);
    }
    const decided: Decided<S, C, E, V> = { command, before, events, after, view, resource };
    return { decided, stored };
  }
}
