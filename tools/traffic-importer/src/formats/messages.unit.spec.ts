import type { FlowParser, LineResult } from '../flow';
import { awsVpcParser } from './aws-vpc';
import { conntrackParser } from './conntrack';
import { gcpVpcParser } from './gcp-vpc';
import { hubbleParser } from './hubble';
import { zeekJsonParser, zeekTsvParser } from './zeek';

/**
 * Every message a bad line gets names what is wrong in words: taking each field away from a
 * good record, one at a time (deleted from JSON, `-` in text formats, dropped from conntrack),
 * never yields a message with "undefined" in it.
 */
const messageOf = (result: LineResult) =>
  result.kind === 'bad' || result.kind === 'unreadable' ? result.message : '';

/** The good record with each leaf of its JSON taken away in turn. */
function withoutEachLeaf(record: Record<string, unknown>): string[] {
  const variants: string[] = [];
  const visit = (node: Record<string, unknown>, path: string[]) => {
    for (const key of Object.keys(node)) {
      const value = node[key];
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
        visit(value as Record<string, unknown>, [...path, key]);
      }
      const copy = structuredClone(record);
      let parent = copy as Record<string, unknown>;
      for (const step of path) parent = parent[step] as Record<string, unknown>;
      delete parent[key];
      variants.push(JSON.stringify(copy));
    }
  };
  visit(record, []);
  return variants;
}

const messages = (parser: () => FlowParser, prefix: string[], lines: string[]) =>
  lines.map((line) => {
    const each = parser();
    prefix.forEach((header) => each.parse(header));
    return messageOf(each.parse(line));
  });

describe('bad-line messages', () => {
  it('say a missing field is missing, in every format, never "undefined"', () => {
    const zeekFields = ['ts', 'uid', 'id.orig_h', 'id.orig_p', 'id.resp_h', 'id.resp_p', 'proto'];
    const zeekValues = ['1591367999.1', 'C1', '10.0.0.1', '40000', '10.0.0.2', '443', 'tcp'];
    const zeekTsv = messages(
      zeekTsvParser,
      [`#fields\t${zeekFields.join('\t')}`],
      zeekValues.map((_, i) => zeekValues.map((value, j) => (i === j ? '-' : value)).join('\t')),
    );
    const zeekJson = messages(
      zeekJsonParser,
      [],
      withoutEachLeaf(Object.fromEntries(zeekFields.map((field, i) => [field, zeekValues[i]]))),
    );
    const awsValues =
      '2 1 eni-1 10.0.0.1 10.0.0.2 40000 443 6 20 4249 1418530010 1418530070 ACCEPT OK'.split(' ');
    const aws = messages(
      awsVpcParser,
      [],
      awsValues.map((_, i) => awsValues.map((value, j) => (i === j ? '-' : value)).join(' ')),
    );
    const conntrackTokens =
      'tcp 6 431999 ESTABLISHED src=10.0.0.1 dst=10.0.0.2 sport=40000 dport=443'.split(' ');
    const conntrack = messages(
      conntrackParser,
      [],
      conntrackTokens.map((_, i) => conntrackTokens.filter((__, j) => j !== i).join(' ')),
    );
    const gcp = messages(
      gcpVpcParser,
      [],
      withoutEachLeaf({
        jsonPayload: {
          connection: {
            src_ip: '10.0.0.1',
            src_port: 40000,
            dest_ip: '10.0.0.2',
            dest_port: 443,
            protocol: 6,
          },
          reporter: 'SRC',
          start_time: '2023-01-31T20:05:16Z',
        },
      }),
    );
    const hubble = messages(
      hubbleParser,
      [],
      withoutEachLeaf({
        flow: {
          time: '2023-03-20T17:22:28Z',
          IP: { source: '10.0.0.1', destination: '10.0.0.2' },
          l4: { TCP: { source_port: 40000, destination_port: 443 } },
          traffic_direction: 'INGRESS',
        },
      }),
    );
    const all = [...zeekTsv, ...zeekJson, ...aws, ...conntrack, ...gcp, ...hubble];
    // Most variants are bad lines, so the check is not vacuous.
    expect(all.filter((message) => message !== '').length).toBeGreaterThan(20);
    expect(all.filter((message) => message.includes('undefined'))).toEqual([]);
  });
});
