import type { FirewallRule } from '@rollout/contracts';
import { compilePolicy } from '@rollout/domain/firewall';
import { recordKeys } from '../src/records';
import type { ActiveExperiment, PolicyView } from '../src/views';

/** Policy views for the preview domain's specs: acme's `web` policy, live at etag L1. */

export const POLICY = 'projects/acme/locations/global/firewallPolicies/web';

/** The live rule: allow 10.0.0.0/8. */
export const allowTen: FirewallRule = {
  priority: 100,
  direction: 'INGRESS',
  action: 'allow',
  match: { srcIpRanges: ['10.0.0.0/8'] },
};

/** The change most specs preview: deny SSH from 10.0.1.0/24, in front of allowTen. */
export const denySsh: FirewallRule = {
  priority: 10,
  direction: 'INGRESS',
  action: 'deny',
  match: { srcIpRanges: ['10.0.1.0/24'], layer4Configs: [{ ipProtocol: 'tcp', ports: ['22'] }] },
};

/** An ACTIVE experiment `id` of `web` (compiled anew on every call, as after a state change). */
export const activeExperiment = (
  id: string,
  rules: FirewallRule[],
  liveEtag = 'L1',
): ActiveExperiment => ({
  name: `${POLICY}/experiments/${id}`,
  etag: `${id}-E1`,
  logSubject: `preview.v1.logs.acme.global.web.${id}`,
  policy: compilePolicy({ rules }),
  liveEtag,
  keys: recordKeys(`${POLICY}/experiments/${id}`, `${id}-E1`, POLICY, liveEtag),
});

/** `web` live at L1 with allowTen, and these experiments ACTIVE. */
export const policyView = (active: ActiveExperiment[]): PolicyView => ({
  name: POLICY,
  etag: 'L1',
  live: compilePolicy({ rules: [allowTen] }),
  logSubject: 'preview.v1.logs.acme.global.web',
  active,
});
