import { provisionFromEnv } from '@rollout/provision';
import {
  TEST_NATS_URL,
  eventually,
  freePort,
  removeTestResources,
  uniqueName,
} from '@rollout/testing/kit';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ready, spawnEnforcementService } from '../test/enforcement-service-system';

/**
 * The filter chain file is validated at boot: a bad one stops the service before it connects
 * to anything, with one line naming the file and the setting; with no file configured, the
 * default shipped next to the app lets it start (`npm start`).
 */
const dir = mkdtempSync(join(tmpdir(), 'enforcement-boot-'));

async function failsWith(yaml: string | undefined, expected: string) {
  const file = join(dir, `${uniqueName('c')}.yaml`);
  if (yaml !== undefined) writeFileSync(file, yaml);
  const { child, stderr } = spawnEnforcementService({
    ENFORCEMENT_CONFIG_FILE: file,
    NATS_URL: 'nats://127.0.0.1:1',
  });
  const [code] = await once(child, 'exit');
  expect(code).toBe(1);
  const line = `enforcement-service: ${expected.replace('$FILE', file)}`;
  // A YAML error goes on with the parser's own words; everything else is exactly one known line.
  if (expected.endsWith(':'))
    expect(stderr()).toMatch(
      new RegExp(`^${line.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} \\S.*\\n$`),
    );
  else expect(stderr()).toBe(`${line}\n`);
}

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('enforcement-service boot', () => {
  it.each([
    [
      'an unknown filter',
      'enabled_filters: [MaxLeaseDuration, NovaQuota]\nfilters: { MaxLeaseDuration: { max_lease_duration: 60 } }\n',
      'invalid enforcement config in $FILE: enabled_filters[1]: unknown filter "NovaQuota" (known: MaxLeaseDuration, MaxActiveLeases, MaxReservationSize, ExternalService; an adapter filter is an entry of filters with an "adapter" key)',
    ],
    [
      'a bad adapter filter',
      'enabled_filters: [budget]\nfilters: { budget: { adapter: acme-budget, failure_policy: maybe } }\n',
      'invalid enforcement config in $FILE: filters.budget.failure_policy: must be "open" or "closed", got "maybe"',
    ],
    [
      'a negative duration',
      'enabled_filters: [MaxLeaseDuration]\nfilters: { MaxLeaseDuration: { max_lease_duration: -5 } }\n',
      'invalid enforcement config in $FILE: filters.MaxLeaseDuration.max_lease_duration: must be a non-negative integer, got -5',
    ],
    [
      'a misspelt setting',
      'enabled_filters: [MaxActiveLeases]\nfilters: { MaxActiveLeases: { max_active_lease: 5 } }\n',
      'invalid enforcement config in $FILE: filters.MaxActiveLeases.max_active_lease: unknown setting (expected one of: mode, max_active_leases, project_overrides)',
    ],
    [
      'a token variable that is not set',
      'enabled_filters: [ExternalService]\nfilters: { ExternalService: { endpoint: "http://policy/", token_env: NO_SUCH_TOKEN_VAR } }\n',
      'invalid enforcement config in $FILE: filters.ExternalService.token_env: the environment variable NO_SUCH_TOKEN_VAR is not set',
    ],
    [
      'broken YAML',
      'enabled_filters: [MaxLeaseDuration\n',
      'ENFORCEMENT_CONFIG_FILE: $FILE is not valid YAML:',
    ],
  ])('stops at once on %s, naming the file and the setting', async (_, yaml, expected) => {
    await failsWith(yaml, expected);
  });

  it('stops when the file is missing', async () => {
    await failsWith(undefined, 'ENFORCEMENT_CONFIG_FILE: cannot read $FILE: no such file');
  });

  it('starts with the default chain when no file is configured, unready until the bus has what it uses', async () => {
    const schema = uniqueName('it_');
    const namespace = uniqueName();
    const port = await freePort();
    const service = spawnEnforcementService({
      PORT: String(port),
      DATABASE_SCHEMA: schema,
      NATS_NAMESPACE: namespace,
    });
    try {
      // It checks the bus too: the replay check's bucket, which the provisioning step declares.
      const unready = await eventually(
        async () => {
          const response = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
          if (response?.status !== 503) return undefined;
          const body = (await response.json()) as { checks: { nats?: { error?: string } } };
          return body.checks.nats?.error;
        },
        { timeoutMs: 30_000, what: 'the missing bucket named' },
      );
      expect(unready).toContain(`KV bucket ${namespace}_ASSERTION_IDS missing`);
      await provisionFromEnv({
        NATS_URL: TEST_NATS_URL,
        NATS_NAMESPACE: namespace,
        BUS_PROVISION_SERVICES: 'enforcement-service',
      });
      await ready(port);
    } finally {
      await service.stop();
      await removeTestResources({ schema, namespace });
    }
  }, 60_000);
});
