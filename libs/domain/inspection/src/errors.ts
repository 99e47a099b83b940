/** Stops the event; the engine shortens its message for sensitive rules so no value leaks. */
export class RuleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RuleError';
  }
}
