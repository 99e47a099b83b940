export { parseAddress, parseRange } from './address';
export type { AddressRange, ParsedAddress } from './address';
export { connectionProblem, NO_PORT, parseConnection, parseProtocol } from './connection';
export type { Connection, ParsedConnection } from './connection';
export { compilePolicy } from './compile';
export type { CompiledPolicy, CompiledPolicyStats, Verdict } from './compile';
