import {
  BadLine,
  FlowParser,
  FlowRecord,
  LineResult,
  address,
  epochSeconds,
  guarded,
  hasPorts,
  port,
  protocolOfNumber,
  skip,
} from '../flow';

/** Version 2 defaults; files delivered to S3 begin with a header naming the fields (a custom format's order). */
export const AWS_DEFAULT_FIELDS = [
  'version',
  'account-id',
  'interface-id',
  'srcaddr',
  'dstaddr',
  'srcport',
  'dstport',
  'protocol',
  'packets',
  'bytes',
  'start',
  'end',
  'action',
  'log-status',
] as const;

const REQUIRED = ['srcaddr', 'dstaddr', 'protocol', 'start'] as const;

export function awsVpcParser(): FlowParser {
  let fields: readonly string[] = AWS_DEFAULT_FIELDS;
  let sawHeader = false;
  return {
    parse: (line) =>
      guarded((): LineResult => {
        const values = line.trim().split(/\s+/);
        if (
          values.includes('srcaddr') &&
          values.every((value) => /^[a-z][a-z0-9-]*$/.test(value))
        ) {
          fields = values;
          sawHeader = true;
          const missing = REQUIRED.filter((name) => !values.includes(name));
          if (missing.length > 0)
            throw new BadLine('bad_header', `the header has no ${missing.join(', ')} field`);
          return skip('header');
        }
        if (values.length !== fields.length) {
          throw new BadLine(
            'wrong_field_count',
            `${values.length} fields where ${sawHeader ? 'the header names' : 'the default format has'} ${fields.length}`,
          );
        }
        const record = new Map(fields.map((name, index) => [name, values[index]]));
        const status = record.get('log-status');
        // NODATA (no traffic in the interval) and SKIPDATA (records lost) carry no connection.
        if (status === 'NODATA' || status === 'SKIPDATA') return skip(status);
        for (const name of REQUIRED) {
          if (record.get(name) === '-' || record.get(name) === undefined)
            throw new BadLine('missing_field', `${name} is missing ("-")`);
        }
        const protocol = protocolOfNumber(record.get('protocol'));
        const flow: FlowRecord = {
          time: epochSeconds(record.get('start'), 'start'),
          srcIp: address(record.get('srcaddr'), 'srcaddr'),
          destIp: address(record.get('dstaddr'), 'dstaddr'),
          protocol,
        };
        if (hasPorts(protocol)) {
          if (record.get('srcport') !== undefined && record.get('srcport') !== '-')
            flow.srcPort = port(record.get('srcport'), 'srcport');
          if (record.get('dstport') !== undefined && record.get('dstport') !== '-')
            flow.destPort = port(record.get('dstport'), 'dstport');
        }
        const direction = record.get('flow-direction');
        if (direction === 'ingress') flow.direction = 'INGRESS';
        else if (direction === 'egress') flow.direction = 'EGRESS';
        else if (direction !== undefined && direction !== '-')
          throw new BadLine(
            'bad_direction',
            `flow-direction ${JSON.stringify(direction)} is neither ingress nor egress (nor "-")`,
          );
        return { kind: 'flow', flow };
      }),
  };
}
