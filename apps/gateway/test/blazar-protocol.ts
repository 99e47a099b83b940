import type { JsonBody } from '@rollout/testing/kit';
import { EnforcementSystem, enforcementSystem, hoursFromNow } from './enforcement-system';

/** MaxActiveLeases of 2, so that a few Blazar leases beside the API's reach it. */
const BLAZAR_CHAIN = `
enabled_filters: [MaxLeaseDuration, MaxActiveLeases]
filters:
  MaxLeaseDuration: { max_lease_duration: 86400 }
  MaxActiveLeases: { max_active_leases: 2 }
`;

export interface BlazarSystem extends EnforcementSystem {
  /** The project's leases as the API lists them (the ledger's copy of Blazar's). */
  ledger(project: string): Promise<Array<Record<string, JsonBody>>>;
}

/** The system of a spec file that Blazar calls, under BLAZAR_CHAIN, with its ledger read. */
export function blazarSystem(): BlazarSystem {
  const system = enforcementSystem<BlazarSystem>(BLAZAR_CHAIN);
  system.ledger = async (project) =>
    (await system.call('GET', `/v1/projects/${project}/leases?pageSize=100`)).body.leases;
  return system;
}

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
