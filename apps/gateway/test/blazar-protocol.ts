import type { JsonBody } from '@rollout/testing/kit';
import { BLAZAR_TOKEN, EnforcementSystem, Reply, hoursFromNow } from './enforcement-system';

/** MaxActiveLeases of 2, so that a few Blazar leases beside the API's reach it. */
export const BLAZAR_CHAIN = `
enabled_filters: [MaxLeaseDuration, MaxActiveLeases]
filters:
  MaxLeaseDuration: { max_lease_duration: 86400 }
  MaxActiveLeases: { max_active_leases: 2 }
`;

/** A call to /v1/blazar/<hook> as Blazar makes it; `token` null: no X-Auth-Token at all. */
export const callBlazar = (
  system: EnforcementSystem,
  hook: string,
  body: unknown,
  token: string | null = BLAZAR_TOKEN,
): Promise<Reply> =>
  system.call('POST', `/v1/blazar/${hook}`, body, token === null ? {} : { 'x-auth-token': token });

/** Blazar's date format (naive, UTC) for a time `hours` from now. */
export const naive = (hours: number) =>
  hoursFromNow(hours)
    .replace('T', ' ')
    .replace(/:\d\dZ$/, '');

export const blazarContext = (project: string) => ({
  user_id: 'c631173e-dec0-4bb7-a0c3-f7711153c06c',
  project_id: project,
  auth_url: 'https://api.example.com:5000/v3',
  region_name: 'RegionOne',
});

/** The spec's physical:host example, with dates of our own. */
export const hostLease = (name: string, hours = 2, extra: Record<string, unknown> = {}) => ({
  name,
  start_date: naive(1),
  end_date: naive(1 + hours),
  reservations: [
    {
      resource_type: 'physical:host',
      min: 1,
      max: 2,
      hypervisor_properties: '[]',
      resource_properties: '["==", "$availability_zone", "az1"]',
      allocations: [
        {
          id: '1',
          hypervisor_hostname: '32af5a7a-e7a3-4883-a643-828e3f63bf54',
          extra: { availability_zone: 'az1' },
        },
      ],
    },
  ],
  ...extra,
});

/** The project's leases as the API lists them (the ledger's copy of Blazar's). */
export const ledgerOf = async (system: EnforcementSystem, project: string) =>
  (await system.call('GET', `/v1/projects/${project}/leases?pageSize=100`)).body.leases as Array<
    Record<string, JsonBody>
  >;
