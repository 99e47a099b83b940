import { isIP } from 'node:net';
import {
  BadLine,
  FlowParser,
  FlowRecord,
  LineResult,
  address,
  epochSeconds,
  guarded,
  jsonObject,
  port,
  rfc3339,
  skip,
} from '../flow';

/**
 * Zeek `conn.log`. The fields a connection needs are `ts`, `id.orig_h`, `id.orig_p`,
 * `id.resp_h`, `id.resp_p` and `proto` (`tcp`, `udp`, `icmp`; ICMP puts the type and code in
 * the port fields). `local_orig` / `local_resp` (when logged) give the direction: a local
 * originator talking to a remote responder is EGRESS, the other way round INGRESS.
 */
type ZeekValue = string | number | boolean | null | undefined;

function connection(get: (field: string) => ZeekValue): LineResult {
  const proto = get('proto');
  if (proto === undefined || proto === null) throw new BadLine('missing_field', 'proto is missing');
  if (proto === 'unknown_transport') return skip('unknown_transport');
  const srcIp = address(get('id.orig_h'), 'id.orig_h');
  const destIp = address(get('id.resp_h'), 'id.resp_h');
  const ts = get('ts');
  if (ts === undefined || ts === null) throw new BadLine('missing_field', 'ts is missing');
  const flow: FlowRecord = {
    time: typeof ts === 'string' && ts.includes('T') ? rfc3339(ts, 'ts') : epochSeconds(ts, 'ts'),
    srcIp,
    destIp,
    protocol: 'tcp',
  };
  if (proto === 'icmp') {
    flow.protocol = isIP(srcIp) === 6 ? 'icmpv6' : 'icmp';
  } else if (proto === 'tcp' || proto === 'udp') {
    flow.protocol = proto;
    flow.srcPort = port(get('id.orig_p'), 'id.orig_p');
    flow.destPort = port(get('id.resp_p'), 'id.resp_p');
  } else {
    throw new BadLine(
      'bad_protocol',
      `proto ${JSON.stringify(proto)} is not tcp, udp, icmp or unknown_transport`,
    );
  }
  const localOrig = get('local_orig');
  const localResp = get('local_resp');
  if (localOrig === true && localResp === false) flow.direction = 'EGRESS';
  else if (localOrig === false && localResp === true) flow.direction = 'INGRESS';
  return { kind: 'flow', flow };
}

/**
 * Zeek's ASCII (TSV) writer: `#separator` (an escaped character, `\x09` by default),
 * `#unset_field` (`-`), `#empty_field` (`(empty)`) and `#fields` lines come before the data;
 * `#types`, `#path`, `#open` and `#close` are read past. T and F are booleans.
 */
export function zeekTsvParser(): FlowParser {
  let separator = '\t';
  let unset = '-';
  let fields: string[] | undefined;
  let indexOf = new Map<string, number>();
  return {
    parse: (line) =>
      guarded((): LineResult => {
        if (line.startsWith('#')) {
          const [directive, ...rest] = line
            .slice(1)
            .split(line.startsWith('#separator') ? ' ' : separator);
          if (directive === 'separator')
            separator = rest
              .join(' ')
              .replace(/\\x([0-9a-fA-F]{2})/g, (_, hex: string) =>
                String.fromCharCode(parseInt(hex, 16)),
              );
          else if (directive === 'unset_field') unset = rest[0];
          else if (directive === 'fields') {
            fields = rest;
            indexOf = new Map(fields.map((name, i) => [name, i]));
          }
          return skip('header');
        }
        if (!fields) throw new BadLine('no_header', 'a data line before the #fields header');
        const values = line.split(separator);
        if (values.length !== fields.length)
          throw new BadLine(
            'wrong_field_count',
            `${values.length} fields where #fields names ${fields.length}`,
          );
        return connection((field) => {
          const i = indexOf.get(field);
          const value = i === undefined ? undefined : values[i];
          if (value === undefined || value === unset) return undefined;
          if (value === 'T') return true;
          if (value === 'F') return false;
          return value;
        });
      }),
  };
}

/** Zeek's JSON writer (`LogAscii::use_json`): one object per line, the same field names. */
export function zeekJsonParser(): FlowParser {
  return {
    parse: (line) =>
      guarded((): LineResult => {
        const record = jsonObject(line);
        return connection((field) => record[field] as ZeekValue);
      }),
  };
}
