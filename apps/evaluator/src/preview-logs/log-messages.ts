import { PREVIEW_LOG_PREFIX, PreviewVerdict, TrafficEvent } from '@rollout/contracts';
import {
  COMPACT_POLICY_LOG_EVENTS,
  COMPACT_POLICY_LOG_TAIL,
  Outcome,
  POLICY_LOG_TAIL,
  RecordKeys,
  ViewLog,
  compactEventRow,
  compactOutcomeJson,
  compactPolicyLogHead,
  eventJson,
  outcomeJson,
  policyLogEventJson,
  policyLogKeys,
} from '@rollout/domain/preview';

/** Under NATS's 1 MB default payload. */
export const MAX_MESSAGE_BYTES = 768 * 1024;

/**
 * Each message numbers its own events' outcomes in order of first appearance. Written straight
 * into the buffers from cached pieces: only one string per event is built.
 */
export function compactPolicyLogMessages(log: ViewLog): Buffer[] {
  const { events, outcomes } = log;
  const head = compactPolicyLogHead(log.view);
  const frame =
    Buffer.byteLength(head) + COMPACT_POLICY_LOG_EVENTS.length + COMPACT_POLICY_LOG_TAIL.length;
  const rows = new Array<string>(events.length);
  const indexes = new Uint32Array(events.length);
  const messages: Buffer[] = [];
  let from = 0;
  let size = frame;
  let order: Outcome[] = [];
  let indexOf = new Map<Outcome, number>();
  for (let i = 0; i < events.length; i++) {
    const row = (rows[i] = compactEventRow(events[i]));
    const rowBytes = Buffer.byteLength(row) + 1; // and its `[`
    const outcome = outcomes[i];
    let index = indexOf.get(outcome);
    let extra = rowBytes + (i > from ? 1 : 0);
    if (index === undefined) {
      extra += compactOutcomeJson(outcome).length + (order.length > 0 ? 1 : 0);
      index = order.length;
    }
    extra += indexText(index).length;
    if (i > from && size + extra > MAX_MESSAGE_BYTES) {
      messages.push(compactMessage(head, order, rows, indexes, from, i, size));
      from = i;
      order = [];
      indexOf = new Map();
      index = 0;
      size = frame + rowBytes + compactOutcomeJson(outcome).length + indexText(0).length;
    } else {
      size += extra;
    }
    if (index === order.length) {
      order.push(outcome);
      indexOf.set(outcome, index);
    }
    indexes[i] = index;
  }
  if (events.length > from)
    messages.push(compactMessage(head, order, rows, indexes, from, events.length, size));
  return messages;
}

function compactMessage(
  head: string,
  order: readonly Outcome[],
  rows: readonly string[],
  indexes: Uint32Array,
  from: number,
  to: number,
  size: number,
): Buffer {
  const message = Buffer.allocUnsafe(size);
  let at = message.write(head, 0);
  for (let o = 0; o < order.length; o++) {
    if (o > 0) message[at++] = COMMA;
    at += message.write(compactOutcomeJson(order[o]), at, 'latin1');
  }
  at += message.write(COMPACT_POLICY_LOG_EVENTS, at, 'latin1');
  for (let i = from; i < to; i++) {
    if (i > from) message[at++] = COMMA;
    message[at++] = OPEN_ROW;
    at += message.write(indexText(indexes[i]), at, 'latin1');
    at += message.write(rows[i], at);
  }
  at += message.write(COMPACT_POLICY_LOG_TAIL, at, 'latin1');
  if (at !== size) throw new Error(`compact preview log message of ${at} bytes, ${size} planned`);
  return message;
}

const OPEN_ROW = 0x5b;
const indexTexts: string[] = [];
const indexText = (index: number) => (indexTexts[index] ??= String(index));

export function policyLogMessages(log: ViewLog): Buffer[] {
  const keys = policyLogKeys(log.view);
  const records = log.events.map(
    (event, i) => policyLogEventJson(keys, event) + outcomeJson(log.outcomes[i]),
  );
  const frame = Buffer.byteLength(keys.head) + POLICY_LOG_TAIL.length;
  return cut(
    records.map((record) => Buffer.byteLength(record)),
    frame,
    (from, to) => Buffer.from(keys.head + records.slice(from, to).join(',') + POLICY_LOG_TAIL),
  );
}

/**
 * Deprecated per-experiment records, copied into the buffers from pieces encoded once per
 * configuration, event and verdict (the engine shares one per rule): no string per record.
 */

const OPEN = Buffer.from('{"records":[');
const CLOSE = Buffer.from(']}');
const COMMA = 0x2c;
const CHANGED = Buffer.from(',"changed":true}');
const UNCHANGED = Buffer.from(',"changed":false}');

export interface EventBytes {
  /** Escaped for a JSON string. */
  readonly id: Buffer;
  /** From the trafficEventId value to `"experimentResult":` */
  readonly body: Buffer;
}

export interface RecordBytes {
  event: EventBytes;
  experiment: PreviewVerdict;
  changed: boolean;
}

interface ConfigurationBytes {
  /** `{"logPrefix":"…","id":"{digest}.` */
  open: Buffer;
  /** `"` then `,"experiment":…,"trafficEventId":` */
  head: Buffer;
}

export class RecordEncoder {
  private readonly configurations = new WeakMap<RecordKeys, ConfigurationBytes>();
  private readonly verdicts = new WeakMap<PreviewVerdict, Buffer>();

  event(event: TrafficEvent, live: PreviewVerdict): EventBytes {
    const json = eventJson(event, live);
    return { id: Buffer.from(json.escapedId), body: Buffer.from(json.body) };
  }

  runs(keys: RecordKeys, records: readonly RecordBytes[]): Buffer[] {
    const { open, head } = this.configuration(keys);
    const fixed = open.length + head.length;
    const lengths = records.map(
      (r) =>
        fixed +
        r.event.id.length +
        r.event.body.length +
        this.verdict(r.experiment).length +
        (r.changed ? CHANGED : UNCHANGED).length,
    );
    return cut(lengths, OPEN.length + CLOSE.length, (from, to, size) => {
      const message = Buffer.allocUnsafe(size);
      let at = OPEN.copy(message, 0);
      for (let i = from; i < to; i++) {
        if (i > from) message[at++] = COMMA;
        const r = records[i];
        at += open.copy(message, at);
        at += r.event.id.copy(message, at);
        at += head.copy(message, at);
        at += r.event.body.copy(message, at);
        at += this.verdict(r.experiment).copy(message, at);
        at += (r.changed ? CHANGED : UNCHANGED).copy(message, at);
      }
      CLOSE.copy(message, at);
      return message;
    });
  }

  private configuration(keys: RecordKeys): ConfigurationBytes {
    let bytes = this.configurations.get(keys);
    if (!bytes) {
      bytes = {
        open: Buffer.from(`{"logPrefix":"${PREVIEW_LOG_PREFIX}","id":"${keys.idPrefix}.`),
        head: Buffer.from(`"${keys.head}`),
      };
      this.configurations.set(keys, bytes);
    }
    return bytes;
  }

  private verdict(v: PreviewVerdict): Buffer {
    let bytes = this.verdicts.get(v);
    if (!bytes) {
      bytes = Buffer.from(
        `{"action":"${v.action}","rulePriority":${v.rulePriority},"implied":${v.implied}}`,
      );
      this.verdicts.set(v, bytes);
    }
    return bytes;
  }
}

/** One record always fits, even past MAX_MESSAGE_BYTES. */
function cut(
  lengths: readonly number[],
  frame: number,
  build: (from: number, to: number, size: number) => Buffer,
): Buffer[] {
  const messages: Buffer[] = [];
  let from = 0;
  let size = frame;
  for (let i = 0; i < lengths.length; i++) {
    const extra = lengths[i] + (i > from ? 1 : 0);
    if (i > from && size + extra > MAX_MESSAGE_BYTES) {
      messages.push(build(from, i, size));
      from = i;
      size = frame + lengths[i];
    } else {
      size += extra;
    }
  }
  if (lengths.length > from) messages.push(build(from, lengths.length, size));
  return messages;
}
