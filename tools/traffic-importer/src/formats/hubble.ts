import {
  BadLine,
  FlowParser,
  FlowRecord,
  LineResult,
  address,
  guarded,
  isObject,
  jsonObject,
  notJsonLines,
  port,
  rfc3339,
  skip,
} from '../flow';

/**
 * `hubble observe -o jsonpb` (or `-o json`); proto and lowerCamelCase field names are both read.
 * Replies and non-flow responses are skipped. Source labels become `srcSecureTags`.
 */
export function hubbleParser(): FlowParser {
  let first = true;
  return {
    parse: (line) =>
      guarded((): LineResult => {
        if (first) {
          first = false;
          const shape = notJsonLines(line, { format: 'hubble', oneObjectOf: 'flow' });
          if (shape) return shape;
        }
        const response = jsonObject(line);
        const flow = isObject(response.flow)
          ? response.flow
          : response.time !== undefined &&
              ('IP' in response || 'l4' in response || 'verdict' in response)
            ? response
            : undefined;
        if (!flow) {
          const kind = Object.keys(response).find((key) => key !== 'node_name' && key !== 'time');
          if (kind) return skip(kind);
          throw new BadLine('missing_field', 'no flow');
        }
        if (pick(flow, 'is_reply', 'isReply') === true) return skip('reply');
        const ip = flow.IP ?? flow.ip;
        if (!isObject(ip)) return skip('no_ip_layer');
        const record: FlowRecord = {
          time: rfc3339(flow.time ?? response.time, 'flow.time'),
          srcIp: address(ip.source, 'flow.IP.source'),
          destIp: address(ip.destination, 'flow.IP.destination'),
          protocol: 'tcp',
        };
        const l4 = flow.l4;
        if (!isObject(l4)) throw new BadLine('missing_field', 'no flow.l4');
        const transport = (['TCP', 'UDP', 'SCTP'] as const).find(
          (name) => isObject(l4[name]) || isObject(l4[name.toLowerCase()]),
        );
        if (transport) {
          const ports = (l4[transport] ?? l4[transport.toLowerCase()]) as Record<string, unknown>;
          record.protocol = transport.toLowerCase() as 'tcp' | 'udp' | 'sctp';
          record.srcPort = port(
            pick(ports, 'source_port', 'sourcePort') ?? 0,
            'flow.l4.source_port',
          );
          record.destPort = port(
            pick(ports, 'destination_port', 'destinationPort') ?? 0,
            'flow.l4.destination_port',
          );
        } else if (isObject(l4.ICMPv4) || isObject(l4.icmpv4)) {
          record.protocol = 'icmp';
        } else if (isObject(l4.ICMPv6) || isObject(l4.icmpv6)) {
          record.protocol = 'icmpv6';
        } else {
          throw new BadLine(
            'bad_protocol',
            `flow.l4 holds none of TCP, UDP, SCTP, ICMPv4, ICMPv6 (${Object.keys(l4).join(', ') || 'nothing'})`,
          );
        }
        const labels = sourceLabels(flow.source);
        if (labels.length) record.srcSecureTags = labels;
        const direction = pick(flow, 'traffic_direction', 'trafficDirection');
        if (direction === 'INGRESS' || direction === 'EGRESS') record.direction = direction;
        return { kind: 'flow', flow: record };
      }),
  };
}

const MAX_SOURCE_LABELS = 64;
const MAX_LABEL_LENGTH = 256;

function sourceLabels(source: unknown): string[] {
  if (!isObject(source) || !Array.isArray(source.labels)) return [];
  return [
    ...new Set(
      source.labels.filter(
        (label): label is string =>
          typeof label === 'string' && label.length > 0 && label.length <= MAX_LABEL_LENGTH,
      ),
    ),
  ].slice(0, MAX_SOURCE_LABELS);
}

function pick(object: Record<string, unknown>, protoName: string, jsonName: string): unknown {
  return object[protoName] ?? object[jsonName];
}
