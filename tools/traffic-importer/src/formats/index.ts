import type { FlowParser, ParserInput } from '../flow';
import { awsVpcParser } from './aws-vpc';
import { conntrackParser } from './conntrack';
import { gcpVpcParser } from './gcp-vpc';
import { hubbleParser } from './hubble';
import { zeekJsonParser, zeekTsvParser } from './zeek';

export const FORMATS = {
  'aws-vpc': awsVpcParser,
  'gcp-vpc': gcpVpcParser,
  zeek: zeekTsvParser,
  'zeek-json': zeekJsonParser,
  hubble: hubbleParser,
  conntrack: conntrackParser,
} satisfies Record<string, (input: ParserInput) => FlowParser>;

export type FormatName = keyof typeof FORMATS;

export const FORMAT_NAMES = Object.keys(FORMATS) as FormatName[];

export const isFormatName = (name: string): name is FormatName => Object.hasOwn(FORMATS, name);
