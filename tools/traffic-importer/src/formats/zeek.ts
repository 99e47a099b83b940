import { isIP } from 'node:net';
import { basename } from 'node:path';
import {
  BadLine,
  FlowParser,
  FlowRecord,
  LineResult,
  ParserInput,
  address,
  epochSeconds,
  guarded,
  jsonObject,
  notJsonLines,
  port,
  rfc3339,
  skip,
} from '../flow';

/** Zeek `conn.log`: `local_orig`/`local_resp` (when logged) give the direction. */
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

/** dns.log, http.log… share conn.log's `id.*` fields and directory, so other logs are skipped by name. */
const otherLog = (path: string): LineResult =>
  skip(`${path.replace(/[^A-Za-z0-9]/g, '_').slice(0, 40)}_log`);

const OTHER_ZEEK_LOGS = new Set(
  (
    'dce_rpc dhcp dnp3 dns dpd files ftp http intel irc kerberos known_certs known_hosts ' +
    'known_services loaded_scripts modbus mysql notice ntlm ntp ocsp packet_filter pe radius rdp ' +
    'reporter rfb sip smb_files smb_mapping smtp snmp socks software ssh ssl stats syslog tunnel ' +
    'weird x509 capture_loss analyzer quic'
  ).split(' '),
);

function otherLogOfName(name: string): string | undefined {
  const path = /^([a-z0-9_]+)\.(?:[^/]*\.)?log(?:\.gz)?$/.exec(basename(name))?.[1];
  return path !== undefined && OTHER_ZEEK_LOGS.has(path) ? path : undefined;
}

/** Zeek's ASCII (TSV) writer: `#separator`, `#unset_field`, `#empty_field`, `#path` and `#fields` headers. */
export function zeekTsvParser(): FlowParser {
  let separator = '\t';
  let unset = '-';
  let path: string | undefined;
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
          else if (directive === 'path') path = rest[0];
          else if (directive === 'fields') {
            fields = rest;
            indexOf = new Map(fields.map((name, i) => [name, i]));
          }
          return skip('header');
        }
        if (path !== undefined && path !== 'conn') return otherLog(path);
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

/** `LogAscii::use_json`; the log is the record's `_path` when present, else the file's name. */
export function zeekJsonParser(input?: ParserInput): FlowParser {
  const logOfName = input ? otherLogOfName(input.name) : undefined;
  let first = true;
  return {
    parse: (line) =>
      guarded((): LineResult => {
        if (first) {
          first = false;
          const shape = notJsonLines(line, { format: 'zeek-json', oneObjectOf: 'record' });
          if (shape) return shape;
        }
        const record = jsonObject(line);
        const path = typeof record._path === 'string' ? record._path : logOfName;
        if (path !== undefined && path !== 'conn') return otherLog(path);
        return connection((field) => record[field] as ZeekValue);
      }),
  };
}
