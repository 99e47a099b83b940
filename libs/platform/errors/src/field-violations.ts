import { StatusError } from '@rollout/contracts';
import type { ValidationError } from 'class-validator';

export interface FieldViolation {
  field: string;
  description: string;
}

/** class-validator's own phrases never reach a client. */
export const FIELD_WORDING = {
  unknown: 'unknown field',
  required: 'required',
  nul: 'must not contain a NUL character',
  unpairedSurrogate: 'must not contain an unpaired UTF-16 surrogate',
  notObject: 'must be a JSON object',
};

const UNPAIRED_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Postgres refuses U+0000 in text and jsonb, and unpaired surrogates in jsonb (UTF-8 cannot carry them). */
export function textProblem(text: string): string | undefined {
  if (text.includes('\u0000')) return FIELD_WORDING.nul;
  if (UNPAIRED_SURROGATE.test(text)) return FIELD_WORDING.unpairedSurrogate;
  return undefined;
}

/** A huge bad body must not make a huger error. */
const MAX_VIOLATIONS = 20;

const number = (message: string) => message.match(/-?\d+(\.\d+)?/)?.[0] ?? '?';
const listAfterColon = (message: string) => message.split(':').slice(1).join(':').trim();

/** From its default message, which holds the numbers. */
const WORDING: Record<string, (message: string) => string> = {
  whitelistValidation: () => FIELD_WORDING.unknown,
  isDefined: () => FIELD_WORDING.required,
  isNotEmpty: () => 'must not be empty',
  maxLength: (m) => `must be at most ${number(m)} characters`,
  minLength: (m) => `must be at least ${number(m)} characters`,
  max: (m) => `must be at most ${number(m)}`,
  min: (m) => `must be at least ${number(m)}`,
  arrayMaxSize: (m) => `must have at most ${number(m)} items`,
  arrayMinSize: (m) => `must have at least ${number(m)} items`,
  arrayNotEmpty: () => 'must not be empty',
  isString: () => 'must be a string',
  isInt: () => 'must be an integer',
  isNumber: () => 'must be a number',
  isNumberString: () => 'must be a number',
  isBoolean: () => 'must be a boolean',
  isBooleanString: () => 'must be true or false',
  isArray: () => 'must be an array',
  isObject: () => FIELD_WORDING.notObject,
  nestedValidation: () => FIELD_WORDING.notObject,
  isEnum: (m) => `must be one of: ${listAfterColon(m)}`,
  isIn: (m) => `must be one of: ${listAfterColon(m)}`,
  isPositive: () => 'must be a positive number',
  isISO8601: () => 'must be an ISO 8601 date and time',
  isDateString: () => 'must be an ISO 8601 date and time',
  isRFC3339: () => 'must be an RFC 3339 date and time',
  isUUID: () => 'must be a UUID',
  isIP: () => 'must be an IP address',
  isUrl: () => 'must be a URL',
  matches: () => 'has an invalid format',
};

export function childPath(parent: string, key: string | number): string {
  if (typeof key === 'number' || /^\d+$/.test(key)) return `${parent}[${key}]`;
  if (/^[A-Za-z_$][\w$]*$/.test(key)) return parent ? `${parent}.${key}` : key;
  return `${parent}[${JSON.stringify(key)}]`;
}

function describe(error: ValidationError, name: string, message: string): string {
  if (name !== 'whitelistValidation' && error.value === undefined) return FIELD_WORDING.required;
  const word = WORDING[name];
  return word ? word(message) : message.replace(new RegExp(`^${error.property} `), '');
}

/** One per field: its first failure. */
export function violationsOf(errors: ValidationError[], parent = ''): FieldViolation[] {
  const violations: FieldViolation[] = [];
  for (const error of errors) {
    if (violations.length >= MAX_VIOLATIONS) break;
    const field = childPath(parent, error.property);
    const [first] = Object.entries(error.constraints ?? {});
    if (first) violations.push({ field, description: describe(error, first[0], first[1]) });
    else violations.push(...violationsOf(error.children ?? [], field));
  }
  return violations.slice(0, MAX_VIOLATIONS);
}

function clause({ field, description }: FieldViolation): string {
  const subject = field || 'the body';
  if (description === FIELD_WORDING.unknown) return `${subject} is an unknown field`;
  if (description === FIELD_WORDING.required) return `${subject} is required`;
  return /^(must|has|is) /.test(description)
    ? `${subject} ${description}`
    : `${subject}: ${description}`;
}

export function invalidFields(violations: FieldViolation[]): StatusError {
  return StatusError.invalidArgument(`${violations.map(clause).join('; ')}.`, violations);
}
