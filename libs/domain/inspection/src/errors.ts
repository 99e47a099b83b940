/**
 * A rule that cannot run as written (a missing key in an action's argument, an incomparable
 * comparison, a hostile regex). It stops the event; the engine turns it into the failure
 * message, shortened for sensitive rules so that no value leaks.
 */
export class RuleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RuleError';
  }
}
