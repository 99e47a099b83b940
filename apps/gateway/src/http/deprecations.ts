import { Logger } from '@nestjs/common';
import {
  CONTRACT_PACKAGE_DEFINITIONS,
  ContractPackageDefinition,
  DeprecatedUse,
  StatusError,
  deprecationHeaders,
  deprecationOverrideEnv,
  findDeprecatedUses,
  isRefused,
} from '@rollout/contracts';
import type { ClientMetrics } from '@rollout/platform/metrics';
import { currentHttpClient } from './client-context';

export const DEPRECATION_DOCS = '/docs';

/**
 * Envoy's deprecation model: a use is counted, logged once per client and field, and answered with
 * `Deprecation`/`Sunset`/`Link`; one disallowed by default is refused unless its override env var is `true`.
 */
export class DeprecationPolicy {
  private readonly logger = new Logger('Deprecations');
  private readonly warned = new Set<string>();
  private readonly env: Record<string, string | undefined>;

  constructor(
    private readonly metrics: ClientMetrics,
    private readonly definitions: readonly ContractPackageDefinition[] = CONTRACT_PACKAGE_DEFINITIONS,
    env: NodeJS.ProcessEnv = process.env,
  ) {
    this.env = overridesFrom(definitions, env);
  }

  check(subject: string, payload: unknown): void {
    const uses = findDeprecatedUses(this.definitions, subject, payload);
    if (uses.length === 0) return;
    const http = currentHttpClient();
    const client = http?.client ?? 'unknown';
    for (const use of uses) {
      const refused = isRefused(use, this.env);
      this.metrics.recordDeprecatedUse(use.contract, use.deprecation.target, client);
      this.warnOnce(client, use, refused);
      if (refused) {
        throw StatusError.withReason(
          'FAILED_PRECONDITION',
          `${use.contract} ${use.deprecation.target} is deprecated since ${use.deprecation.since} and disallowed: use ${use.deprecation.replacement} (an operator can allow it for now with ${use.overrideEnv}=true).`,
          'DEPRECATED_FIELD_DISALLOWED',
          {
            field: use.deprecation.target,
            replacement: use.deprecation.replacement,
            overrideEnv: use.overrideEnv,
          },
        );
      }
      if (http && !http.response.headersSent) {
        for (const [name, value] of Object.entries(
          deprecationHeaders(use.deprecation, DEPRECATION_DOCS),
        )) {
          http.response.setHeader(name, value);
        }
      }
    }
  }

  private warnOnce(client: string, use: DeprecatedUse, refused: boolean) {
    const key = `${this.metrics.clientLabel(client)}\u0000${use.contract}.${use.deprecation.target}`;
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.logger.warn(
      {
        client,
        contract: use.contract,
        field: use.deprecation.target,
        replacement: use.deprecation.replacement,
        sunset: use.deprecation.sunset,
        refused,
      },
      `${client} uses ${use.contract} ${use.deprecation.target}, deprecated since ${use.deprecation.since}: use ${use.deprecation.replacement}`,
    );
  }
}

/** The override env vars of the disallowed deprecations: `true`, `false` or unset, else boot fails. */
function overridesFrom(
  definitions: readonly ContractPackageDefinition[],
  env: NodeJS.ProcessEnv,
): Record<string, string | undefined> {
  const overrides: Record<string, string | undefined> = {};
  for (const definition of definitions) {
    for (const deprecation of definition.deprecations ?? []) {
      if (!deprecation.disallowedByDefault) continue;
      const name = deprecationOverrideEnv(definition.name, deprecation.target);
      const value = env[name];
      if (value !== undefined && value !== 'true' && value !== 'false') {
        throw new Error(`${name} must be true or false, not "${value}"`);
      }
      overrides[name] = value;
    }
  }
  return overrides;
}
