import { ClaimedWrite, StoredEventInput, answerJson, rememberedAnswer } from './event-statements';
import type { EventStore } from './event-store';
import type { EventTransaction, StreamReader } from './event-transaction';
import type { EventMetadata, NewEvent } from './events';
import type { StateCache } from './state-cache';

export interface Aggregate<S extends { version: number }, C, E extends NewEvent, V, R> {
  initialState(streamId: string): S;
  /** A decision that throws appends nothing. */
  decide(command: C, state: S): E[];
  evolve(state: S, event: E): S;
  /** undefined: none. */
  view(state: S): V | undefined;
  project(decided: Decided<S, C, E, V>): Projected<R> | Promise<Projected<R>>;
  cache?: StateCache<S>;
}

export interface Decided<S, C, E, V> {
  command: C;
  before: S;
  events: E[];
  after: S;
  /** Built and serialized once for every write. */
  view: V | undefined;
  resource: string | undefined;
}

export interface Projected<R> {
  response: R;
  /** Written even when there are no events to append. */
  writes: ClaimedWrite[];
  /** By default the response serialized. */
  answer?: ClaimedWrite;
}

/** emmett's CommandHandler, appending with compare-and-set at the state's version. */
export class CommandHandler<S extends { version: number }, C, E extends NewEvent, V, R> {
  constructor(
    private readonly store: EventStore,
    private readonly aggregate: Aggregate<S, C, E, V, R>,
  ) {}

  /** Streams are short: tens of events. */
  async load(reader: StreamReader, streamId: string): Promise<S> {
    const events = (await reader.replayStream(streamId)) as E[];
    return events.reduce(this.aggregate.evolve, this.aggregate.initialState(streamId));
  }

  decide(command: C, state: S): E[] {
    return this.aggregate.decide(command, state);
  }

  /**
   * Decides first on the cached state, without reading the stream: the append at that version
   * wins only if nothing moved the stream. If stale, failed or a no-op, it runs again on the
   * stream as read (a lost race there is ABORTED). No-op decisions are answered in a
   * transaction, once per request id; a retried request id breaks the unique key on append,
   * and every failure looks the id up before it is raised.
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
    cache?.forget(streamId);
    try {
      const state = await this.load(this.store, streamId);
      const answered = await this.appendAtomically(streamId, state, command, metadata);
      if (answered) return answered.response;
      // Decided again: the stream may have moved (even been deleted) since it was read.
      return await this.store.runOnce(metadata.requestId, (tx) =>
        this.handleIn(tx, streamId, command, metadata),
      );
    } catch (error) {
      const original = await this.store.previousResponse<R>(metadata.requestId);
      if (original !== undefined) return original;
      throw error;
    }
  }

  /** The cache is left alone: a state it holds fails its next compare-and-set and is reread. */
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

  /** `before` must be read in this transaction before its first append (see EventTransaction.appendAtomically). */
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

  /** undefined when the decision changes nothing. */
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
