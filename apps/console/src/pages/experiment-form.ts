import { ApiError, type FieldViolation } from '../api/errors';

/** Rules as the editor shows them. */
export const rulesText = (value: unknown) => JSON.stringify(value, null, 2);
/** The field violations of a refused save, for the editor to mark. */
export const violationsOf = (error: unknown): FieldViolation[] =>
  error instanceof ApiError ? error.fieldViolations : [];
