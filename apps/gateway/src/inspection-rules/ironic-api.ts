import type { InspectionRule } from '@rollout/contracts';

/** Ironic's API conventions, so python-ironicclient and openstacksdk work unchanged. */

export const IRONIC_VERSION_HEADER = 'X-OpenStack-Ironic-API-Version';
/** oslo's request id header, and the older name Ironic also sends. */
export const OPENSTACK_REQUEST_ID_HEADERS = [
  'X-OpenStack-Request-Id',
  'OpenStack-Request-Id',
] as const;
export const IRONIC_MIN_VERSION_HEADER = 'X-OpenStack-Ironic-API-Minimum-Version';
export const IRONIC_MAX_VERSION_HEADER = 'X-OpenStack-Ironic-API-Maximum-Version';
/** The header openstacksdk sends as well (`baremetal 1.96`); it wins over the legacy one, as in Ironic. */
export const OPENSTACK_VERSION_HEADER = 'OpenStack-API-Version';

export interface IronicVersion {
  major: number;
  minor: number;
}

/** Ironic's oldest version, and the newest release whose inspection rules API this serves. */
export const IRONIC_MIN_VERSION: IronicVersion = { major: 1, minor: 1 };
export const IRONIC_MAX_VERSION: IronicVersion = { major: 1, minor: 115 };
/** 1.96 introduced inspection rules: below it the routes answer as Ironic does (404, or 405 for changes). */
export const INSPECTION_RULES_MINOR = 96;

export const formatVersion = (version: IronicVersion) => `${version.major}.${version.minor}`;

export type Negotiated = { version: IronicVersion; requested: boolean } | { notAcceptable: string };

type Headers = Record<string, string | string[] | undefined>;

function header(headers: Headers, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(',') : value;
}

/** `OpenStack-API-Version: baremetal 1.96` (several services may be listed, comma-separated). */
function baremetalVersion(value: string | undefined): string | undefined {
  for (const part of value?.split(',') ?? []) {
    const [service, version] = part.trim().split(/\s+/);
    if (service?.toLowerCase() === 'baremetal' && version) return version;
  }
  return undefined;
}

/**
 * As Ironic reads it, except that no header means the maximum (Ironic would serve 1.1, without
 * inspection rules): this API has clients that never sent the header.
 */
export function negotiateVersion(headers: Headers): Negotiated {
  const asked =
    baremetalVersion(header(headers, OPENSTACK_VERSION_HEADER)) ??
    header(headers, IRONIC_VERSION_HEADER);
  if (asked === undefined) return { version: IRONIC_MAX_VERSION, requested: false };
  const text = asked.trim();
  const match = /^(\d+)\.(\d+)$/.exec(text);
  if (text.toLowerCase() !== 'latest' && !match)
    return { notAcceptable: `Invalid value for ${IRONIC_VERSION_HEADER} header` };
  const version = match ? { major: Number(match[1]), minor: Number(match[2]) } : IRONIC_MAX_VERSION;
  const range = `[${formatVersion(IRONIC_MIN_VERSION)}, ${formatVersion(IRONIC_MAX_VERSION)}]`;
  if (version.major !== IRONIC_MAX_VERSION.major) {
    return {
      notAcceptable:
        `Mutually exclusive versions requested. Version ${formatVersion(version)} requested but not supported by this service. ` +
        `The supported version range is: ${range}.`,
    };
  }
  if (version.minor < IRONIC_MIN_VERSION.minor || version.minor > IRONIC_MAX_VERSION.minor) {
    return {
      notAcceptable:
        `Version ${formatVersion(version)} was requested but the minor version is not supported by this service. ` +
        `The supported version range is: ${range}.`,
    };
  }
  return { version, requested: true };
}

/** Python's `json.dumps`: `", "` and `": "` separators and ASCII only, as Ironic writes the fault. */
function pythonJson(fields: [string, string | null][]): string {
  const ascii = (text: string) =>
    text.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return `{${fields.map(([key, value]) => `${JSON.stringify(key)}: ${value === null ? 'null' : ascii(JSON.stringify(value))}`).join(', ')}}`;
}

/** `error_message` is a JSON document in a string (`faultcode` `Client` for 4xx, `Server` otherwise). */
export function ironicErrorBody(httpStatus: number, message: string): { error_message: string } {
  const faultcode = httpStatus >= 400 && httpStatus < 500 ? 'Client' : 'Server';
  return {
    error_message: pythonJson([
      ['faultcode', faultcode],
      ['faultstring', message],
      ['debuginfo', null],
    ]),
  };
}

export const RULE_FIELDS = [
  'uuid',
  'created_at',
  'updated_at',
  'description',
  'priority',
  'sensitive',
  'phase',
  'conditions',
  'actions',
  'scope',
  'built_in',
  'links',
] as const;

/** What a list shows without `detail` or `fields` (Ironic's DEFAULT_RETURN_FIELDS), plus `links`. */
export const DEFAULT_LIST_FIELDS = ['uuid', 'priority', 'phase', 'description'];

export interface IronicLink {
  href: string;
  rel: 'self' | 'bookmark';
}

export type IronicRule = Partial<InspectionRule> & { links?: IronicLink[] };

export class FieldsError extends Error {}

/** As Ironic reads it: comma-separated, blanks dropped. */
export function parseFields(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const fields = value
    .split(',')
    .map((field) => field.trim())
    .filter(Boolean);
  const invalid = fields.filter((field) => !(RULE_FIELDS as readonly string[]).includes(field));
  if (invalid.length) throw new FieldsError(`Field(s) "${invalid.join(', ')}" are not valid`);
  return fields;
}

/** Ironic's `bool_from_string` in strict mode, which `?detail=` goes through. */
export function parseBoolean(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  const text = value.trim().toLowerCase();
  if (['1', 't', 'true', 'on', 'y', 'yes'].includes(text)) return true;
  if (['0', 'f', 'false', 'off', 'n', 'no'].includes(text)) return false;
  return undefined;
}

export const ruleUrl = (baseUrl: string, uuid: string) => `${baseUrl}/v1/inspection_rules/${uuid}`;

/** `links` are always kept, as Ironic does, whatever `fields` names. */
export function ironicRule(
  rule: InspectionRule,
  baseUrl: string,
  fields?: readonly string[],
): IronicRule {
  const links: IronicLink[] = [
    { href: ruleUrl(baseUrl, rule.uuid), rel: 'self' },
    { href: `${baseUrl}/inspection_rules/${rule.uuid}`, rel: 'bookmark' },
  ];
  const full: IronicRule = { ...rule, links };
  if (!fields) return full;
  const shown: Record<string, unknown> = { links };
  for (const field of fields) if (field in full) shown[field] = full[field as keyof IronicRule];
  return shown as IronicRule;
}

export interface ListQuery {
  limit: number;
  sort_key: string;
  sort_dir: string;
  detail?: boolean;
  fields?: readonly string[];
  phase?: string;
  scope?: string;
}

/** Present when the page is full, with `marker` set to its last rule. */
export function nextLink(
  baseUrl: string,
  query: ListQuery,
  page: readonly InspectionRule[],
): string | undefined {
  if (page.length === 0 || page.length !== query.limit) return undefined;
  const args: [string, string][] = [];
  if (query.phase !== undefined) args.push(['phase', query.phase]);
  if (query.scope !== undefined) args.push(['scope', query.scope]);
  args.push(['sort_key', query.sort_key], ['sort_dir', query.sort_dir]);
  if (query.detail !== undefined) args.push(['detail', query.detail ? 'True' : 'False']);
  if (query.fields?.length) args.push(['fields', query.fields.join(',')]);
  args.push(['limit', String(query.limit)], ['marker', page[page.length - 1].uuid]);
  const encode = (text: string) => encodeURIComponent(text).replace(/%2C/g, ',');
  return `${baseUrl}/v1/inspection_rules?${args.map(([key, value]) => `${key}=${encode(value)}`).join('&')}`;
}

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

/** Ironic checks the uuid before anything else: 400 with the schema's words (Python's repr). */
export function malformedUuid(value: string): string | undefined {
  if (UUID.test(value)) return undefined;
  return `Schema error: '${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}' is not a 'uuid'`;
}

const OPENSTACK_REQUEST_ID = /^req-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const UUID_ONLY = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** oslo's `req-<uuid>`: the client's valid one, else the gateway's request id when a uuid (so logs agree). */
export function openstackRequestId(
  headers: Headers,
  requestId: string,
  fresh: () => string,
): string {
  const given = header(headers, OPENSTACK_REQUEST_ID_HEADERS[0]);
  if (given && OPENSTACK_REQUEST_ID.test(given)) return given;
  return `req-${UUID_ONLY.test(requestId) ? requestId : fresh()}`;
}
