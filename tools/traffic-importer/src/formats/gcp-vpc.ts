import {
  BadLine,
  FlowParser,
  FlowRecord,
  LineResult,
  address,
  guarded,
  hasPorts,
  isObject,
  jsonObject,
  notJsonLines,
  port,
  protocolOfNumber,
  rfc3339,
} from '../flow';

/**
 * One Cloud Logging LogEntry per line, as a Cloud Storage sink writes them. `jsonPayload.reporter`
 * `SRC` reports its egress, `DEST` its ingress.
 */
export function gcpVpcParser(): FlowParser {
  let first = true;
  return {
    parse: (line) =>
      guarded((): LineResult => {
        if (first) {
          first = false;
          const shape = notJsonLines(line, {
            format: 'gcp-vpc',
            oneObjectOf: 'LogEntry',
            arrayFrom: '`gcloud logging read --format=json`',
          });
          if (shape) return shape;
        }
        const entry = jsonObject(line);
        const payload = entry.jsonPayload;
        if (!isObject(payload)) throw new BadLine('missing_field', 'no jsonPayload');
        const connection = payload.connection;
        if (!isObject(connection)) throw new BadLine('missing_field', 'no jsonPayload.connection');
        const protocol = protocolOfNumber(connection.protocol, 'jsonPayload.connection.protocol');
        const flow: FlowRecord = {
          time: rfc3339(
            payload.start_time ?? entry.timestamp,
            payload.start_time === undefined ? 'timestamp' : 'jsonPayload.start_time',
          ),
          srcIp: address(connection.src_ip, 'jsonPayload.connection.src_ip'),
          destIp: address(connection.dest_ip, 'jsonPayload.connection.dest_ip'),
          protocol,
        };
        if (hasPorts(protocol)) {
          if (connection.src_port !== undefined)
            flow.srcPort = port(connection.src_port, 'jsonPayload.connection.src_port');
          if (connection.dest_port !== undefined)
            flow.destPort = port(connection.dest_port, 'jsonPayload.connection.dest_port');
        }
        if (payload.reporter === 'SRC') flow.direction = 'EGRESS';
        else if (payload.reporter === 'DEST') flow.direction = 'INGRESS';
        else if (payload.reporter !== undefined)
          throw new BadLine(
            'bad_reporter',
            `jsonPayload.reporter ${JSON.stringify(payload.reporter)} is neither SRC nor DEST`,
          );
        return { kind: 'flow', flow };
      }),
  };
}
