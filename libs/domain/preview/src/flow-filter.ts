import { filterTerms, type FilterOperator, type PreviewTransition } from '@rollout/contracts';
import { parseProtocol, parseRange } from '@rollout/domain/firewall';
import { addressText, protocolName } from './flows';
import { IMPLIED_PRIORITY } from './totals';

/** The conjunctive subset of AIP-160 a flow list needs; `:` is `=` for addresses. */
export type Equality = '=' | '!=';
export type Comparison = Equality | '<' | '<=' | '>' | '>=';

export type FlowFilterTerm =
  | { field: 'transition'; op: Equality; value: PreviewTransition }
  | { field: 'liveRule' | 'experimentRule'; op: Comparison; value: number }
  | { field: 'srcIp' | 'destIp' | 'ip'; op: Equality; value: string }
  | { field: 'destPort'; op: Comparison; value: number }
  | { field: 'protocol'; op: Equality; value: string }
  | { field: 'direction'; op: Equality; value: 'INGRESS' | 'EGRESS' }
  | { field: 'experimentEtag' | 'livePolicyEtag'; op: Equality; value: string };

export type ParsedFlowFilter = { terms: FlowFilterTerm[] } | { error: string };

export const FLOW_FILTER_MAX_LENGTH = 2000;

const EQUALITY: readonly string[] = ['=', '!='];

export function parseFlowFilter(text: string | undefined): ParsedFlowFilter {
  if (text === undefined || text.trim() === '') return { terms: [] };
  if (typeof text !== 'string') return { error: 'filter must be a string' };
  if (text.length > FLOW_FILTER_MAX_LENGTH)
    return { error: `filter is longer than ${FLOW_FILTER_MAX_LENGTH} characters` };
  const terms: FlowFilterTerm[] = [];
  for (const read of filterTerms(text, { keyword: 'AND' })) {
    if ('error' in read) return { error: read.error };
    const term = parseTerm(read.field, read.op, read.value);
    if ('error' in term) return term;
    terms.push(term);
  }
  return { terms };
}

function parseTerm(
  field: string,
  op: FilterOperator,
  value: string,
): FlowFilterTerm | { error: string } {
  const equality = (): Equality | undefined =>
    op === ':' ? undefined : EQUALITY.includes(op) ? (op as Equality) : undefined;
  const onlyEquality = { error: `${field} takes = or != only` };
  switch (field) {
    case 'transition': {
      const eq = equality();
      if (!eq) return onlyEquality;
      if (value !== 'ALLOW_TO_DENY' && value !== 'DENY_TO_ALLOW')
        return { error: `transition must be ALLOW_TO_DENY or DENY_TO_ALLOW, not "${value}"` };
      return { field, op: eq, value };
    }
    case 'liveRule':
    case 'experimentRule': {
      if (op === ':') return { error: `${field} takes =, !=, <, <=, > or >=` };
      if (value === 'implied') {
        const eq = equality();
        return eq
          ? { field, op: eq, value: IMPLIED_PRIORITY }
          : { error: `${field} compares with implied by = or != only` };
      }
      const priority = integer(value, 0, 65535);
      return priority === undefined
        ? { error: `${field} must be a rule priority 0-65535 or implied, not "${value}"` }
        : { field, op, value: priority };
    }
    case 'srcIp':
    case 'destIp':
    case 'ip': {
      const eq: Equality | undefined = op === ':' ? '=' : equality();
      if (!eq) return onlyEquality;
      const range = cidr(value);
      return range
        ? { field, op: eq, value: range }
        : { error: `${field} must be an IP address or a CIDR range, not "${value}"` };
    }
    case 'destPort': {
      if (op === ':') return { error: 'destPort takes =, !=, <, <=, > or >=' };
      const port = integer(value, 0, 65535);
      return port === undefined
        ? { error: `destPort must be a port 0-65535, not "${value}"` }
        : { field, op, value: port };
    }
    case 'protocol': {
      const eq = equality();
      if (!eq) return onlyEquality;
      const number = parseProtocol(/^\d+$/.test(value) ? Number(value) : value.toLowerCase());
      return number === undefined
        ? { error: `protocol must be a protocol name or a number 0-255, not "${value}"` }
        : { field, op: eq, value: protocolName(number) };
    }
    case 'direction': {
      const eq = equality();
      if (!eq) return onlyEquality;
      return value === 'INGRESS' || value === 'EGRESS'
        ? { field, op: eq, value }
        : { error: `direction must be INGRESS or EGRESS, not "${value}"` };
    }
    case 'experimentEtag':
    case 'livePolicyEtag': {
      const eq = equality();
      return eq ? { field, op: eq, value } : onlyEquality;
    }
    default:
      return {
        error: `unknown field ${field}: filter on transition, liveRule, experimentRule, srcIp, destIp, ip, destPort, protocol, direction, experimentEtag or livePolicyEtag`,
      };
  }
}

function integer(text: string, min: number, max: number): number | undefined {
  if (!/^\d{1,5}$/.test(text)) return undefined;
  const n = Number(text);
  return n >= min && n <= max ? n : undefined;
}

/** Host bits cleared. */
function cidr(text: string): string | undefined {
  const range = parseRange(text);
  if (!range) return undefined;
  const bits = range.family === 4 ? 32 : 128;
  const prefix =
    bits - ((range.last - range.first).toString(2).length - (range.last === range.first ? 1 : 0));
  const word = (i: number) => Number((range.first >> BigInt(32 * i)) & 0xffffffffn);
  const network =
    range.family === 4
      ? addressText(4, word(0), 0, 0, 0)
      : addressText(6, word(3), word(2), word(1), word(0));
  return `${network}/${prefix}`;
}
