import { isPlainObject, setOwn } from './values';

export const MASK = '***';

export type MaskSecrets = 'always' | 'never' | 'sensitive';

const SECRET_KEY = /password|token|secret/i;

export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key);
}

export function maskSecrets<T>(value: T): T {
  if (Array.isArray(value)) return value.map((item) => maskSecrets(item)) as T;
  if (!isPlainObject(value)) return value;
  const masked: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    setOwn(
      masked,
      key,
      isSecretKey(key) && child !== null && child !== undefined ? MASK : maskSecrets(child),
    );
  }
  return masked as T;
}

export function seesSecrets(mode: MaskSecrets, ruleIsSensitive: boolean): boolean {
  return mode === 'never' || (mode === 'sensitive' && ruleIsSensitive);
}
