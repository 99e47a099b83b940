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

/**
 * `conntrack -L` and `-E`, plain or `-o extended`/`-o timestamp`. The original tuple is the
 * connection; of the events only `[NEW]` is one. A listing has no time: the importer stamps it.
 */
export function conntrackParser(): FlowParser {
  return {
    parse: (line) =>
      guarded((): LineResult => {
        let rest = line.trim();
        // The summary line conntrack writes to stderr, when 2>&1 brings it along.
        if (/^conntrack v\S+ \(conntrack-tools\)/.test(rest)) return skip('summary');
        let time: Date | undefined;
        const stamp = /^\[(\d+(?:\.\d+)?)\s*\]\s*/.exec(rest);
        if (stamp) {
          time = epochSeconds(stamp[1], 'timestamp');
          rest = rest.slice(stamp[0].length);
        }
        const event = /^\[([A-Z]+)\]\s*/.exec(rest);
        if (event) {
          if (event[1] !== 'NEW') return skip(event[1]);
          rest = rest.slice(event[0].length);
        }
        const tokens = rest.split(/\s+/);
        if (tokens[0] === 'ipv4' || tokens[0] === 'ipv6') tokens.splice(0, 2);
        // tokens: <l4 name> <l4 number> <timeout> [state] key=value… [flags]
        if (tokens.length < 3 || !/^\d+$/.test(tokens[1]))
          throw new BadLine(
            'bad_entry',
            'not a conntrack entry (expected "<protocol> <number> <timeout> …")',
          );
        const protocol = protocolOfNumber(tokens[1]);
        const original = new Map<string, string>();
        for (const token of tokens.slice(2)) {
          const pair = /^([a-z]+)=(.*)$/.exec(token);
          if (!pair) continue;
          if (original.has(pair[1])) break; // the reply tuple begins
          original.set(pair[1], pair[2]);
        }
        if (!original.has('src') || !original.has('dst'))
          throw new BadLine('missing_field', 'no src= and dst= in the entry');
        const flow: FlowRecord = {
          srcIp: address(original.get('src'), 'src'),
          destIp: address(original.get('dst'), 'dst'),
          protocol,
        };
        if (time) flow.time = time;
        if (hasPorts(protocol)) {
          // conntrack always prints both ports of a TCP, UDP or SCTP tuple: one missing is a cut line.
          for (const field of ['sport', 'dport'])
            if (!original.has(field))
              throw new BadLine('missing_field', `a ${protocol} entry without ${field}=`);
          flow.srcPort = port(original.get('sport'), 'sport');
          flow.destPort = port(original.get('dport'), 'dport');
        }
        return { kind: 'flow', flow };
      }),
  };
}
