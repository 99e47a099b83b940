import type { Deprecation, Stability } from '@rollout/contracts';

export type JsonSchema = { [key: string]: unknown };

/** Decides which changes break readers or writers. */
export type Role = 'request' | 'reply' | 'event' | 'resource';

export interface LockedChannel {
  kind: 'request-reply' | 'stream';
  /** request-reply: [request, reply]; stream: [message]. */
  messages: string[];
}

export interface LockedPackage {
  version: string;
  stability: Stability;
  /** Of the canonical content (everything but version, stability, references). */
  hash: string;
  /** From its imports. */
  references: string[];
  messages: Record<string, Role>;
  channels: Record<string, LockedChannel>;
  reserved: Record<string, string[]>;
  deprecations: Deprecation[];
  features: string[];
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
  subject: string;
  path?: string;
  message: string;
}

export function formatViolation(violation: Violation): string {
  const where = violation.path ? `${violation.subject} ${violation.path}` : violation.subject;
  return `[${violation.rule}] ${where}: ${violation.message}`;
}
