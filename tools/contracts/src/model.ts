import type { Deprecation, Stability } from '@rollout/contracts';

/** A JSON Schema (draft-07) as a plain JSON value. */
export type JsonSchema = { [key: string]: unknown };

/** How a message is used, which decides which changes break its readers or writers. */
export type Role = 'request' | 'reply' | 'event' | 'resource';

/** A subject as the lock records it: which messages travel on it. */
export interface LockedChannel {
  kind: 'request-reply' | 'stream';
  /** request-reply: [request, reply]; stream: [message]. */
  messages: string[];
}

/** One package in the lock: its metadata and its canonical schema. */
export interface LockedPackage {
  version: string;
  stability: Stability;
  /** sha256 of the canonical content below (everything but version, stability, references). */
  hash: string;
  /** Packages whose types this one uses (from its imports). */
  references: string[];
  messages: Record<string, Role>;
  channels: Record<string, LockedChannel>;
  reserved: Record<string, string[]>;
  deprecations: Deprecation[];
  features: string[];
  /** Canonical JSON Schemas of every type the messages reach, by definition name. */
  definitions: Record<string, JsonSchema>;
}

export interface LockFile {
  lockVersion: 1;
  packages: Record<string, LockedPackage>;
}

export type RuleId =
  // the package as it is now
  | 'MISSING_PACKAGE_TS'
  | 'INVALID_PACKAGE_TS'
  | 'PACKAGE_NAME_MISMATCH'
  | 'INVALID_VERSION'
  | 'STABILITY_MISMATCH'
  | 'UNKNOWN_TYPE'
  | 'PACKAGE_CONSTANT_MISMATCH'
  | 'INVALID_DEPRECATION'
  | 'UNDECLARED_DEPRECATION'
  | 'RESERVED_FIELD_REUSED'
  | 'INVALID_FEATURE'
  | 'STABLE_REFERENCES_ALPHA'
  | 'ONE_DEFINITION_RULE'
  | 'STALE_GENERATED_FILE'
  // against a previous lock
  | 'VERSION_NOT_BUMPED'
  | 'VERSION_DECREASED'
  | 'PACKAGE_REMOVED'
  | 'STABILITY_DOWNGRADED'
  | 'MESSAGE_REMOVED'
  | 'CHANNEL_REMOVED'
  | 'FIELD_REMOVED'
  | 'FIELD_RENAMED'
  | 'TYPE_CHANGED'
  | 'CARDINALITY_CHANGED'
  | 'REQUIRED_FIELD_ADDED'
  | 'REQUIRED_FIELD_REMOVED'
  | 'ENUM_VALUE_REMOVED'
  | 'DISCRIMINATOR_CHANGED'
  | 'CONSTRAINT_TIGHTENED';

export interface Violation {
  rule: RuleId;
  /** The package (or file) it is about. */
  subject: string;
  /** Where in it: `Type.field[].sub`, a subject, a file. */
  path?: string;
  message: string;
}

export function formatViolation(violation: Violation): string {
  const where = violation.path ? `${violation.subject} ${violation.path}` : violation.subject;
  return `[${violation.rule}] ${where}: ${violation.message}`;
}
