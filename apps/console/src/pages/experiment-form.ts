import { ApiError, type FieldViolation } from '../api/errors';

export const rulesText = (value: unknown) => JSON.stringify(value, null, 2);
export const violationsOf = (error: unknown): FieldViolation[] =>
  error instanceof ApiError ? error.fieldViolations : [];
