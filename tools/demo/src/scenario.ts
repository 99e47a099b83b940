import {
  type FirewallRule,
  type PreviewConfigurationReport,
  type PreviewReport,
  formatExperimentName,
  formatPolicyName,
} from '@rollout/contracts';

/**
 * A small web tier, tightened as a security review would (SSH only through the VPN, the database
 * only from the application subnet); sample/zeek-conn.tsv is a traffic mix aimed at it.
 */
export const DEMO_PROJECT = 'demo';
export const DEMO_LOCATION = 'global';
export const DEMO_POLICY = 'web-edge';
export const DEMO_EXPERIMENT = 'tighten-ssh-and-db';

const DEMO_REF = { project: DEMO_PROJECT, location: DEMO_LOCATION, policy: DEMO_POLICY };
export const POLICY_NAME = formatPolicyName(DEMO_REF);
export const POLICY_PATH = `/v1/${POLICY_NAME}`;
export const EXPERIMENT_PATH = `/v1/${formatExperimentName({ ...DEMO_REF, experiment: DEMO_EXPERIMENT })}`;
export const SAMPLE_FLOW_LOG = 'tools/demo/sample/zeek-conn.tsv';

const rule = (
  priority: number,
  description: string,
  ipProtocol: string,
  ports: string[],
  srcIpRanges: string[],
): FirewallRule => ({
  priority,
  description,
  direction: 'INGRESS',
  action: 'allow',
  match: { srcIpRanges, layer4Configs: [{ ipProtocol, ports }] },
});

export const LIVE_RULES: FirewallRule[] = [
  rule(100, 'Web traffic from anywhere', 'tcp', ['80', '443'], ['0.0.0.0/0']),
  rule(200, 'SSH from the VPN', 'tcp', ['22'], ['10.8.0.0/16']),
  rule(300, 'SSH from anywhere (legacy, from the first deployment)', 'tcp', ['22'], ['0.0.0.0/0']),
  rule(400, 'Postgres from the private network', 'tcp', ['5432'], ['10.20.0.0/16']),
  rule(500, 'DNS inside the network', 'udp', ['53'], ['10.0.0.0/8']),
];

export const EXPERIMENT_RULES: FirewallRule[] = [
  LIVE_RULES[0],
  LIVE_RULES[1],
  rule(400, 'Postgres from the application subnet only', 'tcp', ['5432'], ['10.20.1.0/24']),
  LIVE_RULES[4],
];

/** A report also keeps the configurations of an earlier demo's deleted experiment of the same name. */
export function configurationOf(
  report: PreviewReport,
  experimentEtag: string,
): PreviewConfigurationReport | undefined {
  return report.configurations.find(
    (configuration) => configuration.experimentEtag === experimentEtag,
  );
}

export function reportLine(latest: PreviewConfigurationReport | undefined): string {
  if (!latest) return 'no traffic evaluated yet';
  return `${latest.evaluated.toLocaleString('en-US')} connections evaluated, ${latest.changed.toLocaleString('en-US')} would change (${latest.allowToDeny.toLocaleString('en-US')} allowed today would be denied, ${latest.denyToAllow.toLocaleString('en-US')} denied today would be allowed)`;
}

/** Each curl carries the token and, for a body, its JSON type (any other, or none, is 415). */
export function whereToLook({
  gateway,
  token,
  experimentEtag,
}: {
  gateway: string;
  token: string;
  experimentEtag: string;
}): string[] {
  const auth = `-H "Authorization: Bearer ${token}"`;
  const json = '-H "Content-Type: application/json"';
  const experiment = `${gateway}${EXPERIMENT_PATH}`;
  return [
    'Where to look:',
    `  the report:        curl -s ${auth} ${experiment}/previewReport`,
    `  what would change: curl -s ${auth} -G ${experiment}/previewFlows --data-urlencode 'filter=transition = ALLOW_TO_DENY'`,
    `  the API:           ${gateway}/docs`,
    // A salt of its own: the same records again are new traffic, with positions of their own.
    `  more traffic:      npx rollout-traffic import --format zeek --project ${DEMO_PROJECT} --policy ${DEMO_POLICY} --restamp --id-salt "$(date +%s)" ${SAMPLE_FLOW_LOG}`,
    `  commit it:         curl -s ${auth} ${json} -X POST ${experiment}:commit -d '{"etag":"${experimentEtag}"}'`,
  ];
}
