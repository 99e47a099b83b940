import { EXPERIMENT_STATE_BUCKET, STATE_KEY_PREFIX, policyStateKey } from '@rollout/contracts';
import { NatsNamespace } from '@rollout/platform/nats';
import { Empty, NatsConnection, NatsError } from 'nats';

/** What the state bucket says of the policies an import targets. */
export interface PolicyCheck {
  /** Target policies with no live entry (never created, deleted, or committed away). */
  missing: string[];
  /** The project's live policies in that location, when this credential may list them. */
  known?: string[];
}

export class PolicyCheckError extends Error {}

const LIST_TIMEOUT_MS = 5_000;
const GET_TIMEOUT_MS = 5_000;

/**
 * Reads the live policies' keys in the experiment-service's state bucket (EXPERIMENT_STATE,
 * key `experiment.v1.policy.{project}.{location}.{policy}`), one direct get by subject per
 * policy: a traffic producer's credential may read its projects' policy keys, nothing else
 * (libs/platform/bus-permissions): not the relay's position key, which would tell it how busy
 * every other project is. Listing the project's policies needs a consumer, which only broader
 * credentials may create: without it the list is left out.
 */
export async function checkPolicies(
  connection: NatsConnection,
  target: { namespace?: string; project: string; location: string; policies: string[] },
): Promise<PolicyCheck> {
  const bucket = new NatsNamespace(target.namespace).bucket(EXPERIMENT_STATE_BUCKET);
  const stream = `KV_${bucket}`;
  // The key is in the request's subject (not its body), so permissions can name the keys.
  const last = async (key: string) => {
    let reply;
    try {
      reply = await connection.request(`$JS.API.DIRECT.GET.${stream}.$KV.${bucket}.${key}`, Empty, {
        timeout: GET_TIMEOUT_MS,
      });
    } catch (error) {
      throw new PolicyCheckError(describe(error, stream));
    }
    const status = reply.headers?.code ?? 0;
    if (status === 404) return undefined;
    if (status >= 300)
      throw new PolicyCheckError(
        `reading the state bucket failed: ${status} ${reply.headers?.description ?? ''}`.trim(),
      );
    const operation = reply.headers?.get('KV-Operation');
    return operation === 'DEL' || operation === 'PURGE' ? undefined : reply;
  };
  const missing: string[] = [];
  for (const policy of target.policies)
    if (!(await last(policyStateKey(target.project, target.location, policy))))
      missing.push(policy);
  if (missing.length === 0) return { missing };
  return { missing, known: await listPolicies(connection, bucket, target) };
}

async function listPolicies(
  connection: NatsConnection,
  bucket: string,
  { project, location }: { project: string; location: string },
): Promise<string[] | undefined> {
  const prefix = `${STATE_KEY_PREFIX}policy.${project}.${location}.`;
  const list = async () => {
    const kv = await connection.jetstream().views.kv(bucket, { bindOnly: true });
    const names: string[] = [];
    for await (const key of await kv.keys(`${prefix}*`)) names.push(key.slice(prefix.length));
    return names.sort();
  };
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), LIST_TIMEOUT_MS);
  });
  try {
    return await Promise.race([list().catch(() => undefined), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function describe(error: unknown, stream: string): string {
  const text = error instanceof Error ? error.message : String(error);
  if (error instanceof NatsError && error.code === '503')
    return `the state bucket (stream ${stream}) is not there to read: has the bus provisioning step run (npm start, the bus-provision Job, npm run bus:provision)?`;
  if (error instanceof NatsError && error.isPermissionError())
    return `this NATS user may not read the state bucket's policy keys (${text}): its credential predates the read a traffic producer is given (docs/bus-security.md)`;
  return `reading the state bucket failed: ${text}`;
}

/** What the import says when a target policy is not live: which, and what there is instead. */
export function unknownPolicyMessage(
  check: PolicyCheck,
  { project, location }: { project: string; location: string },
): string {
  const names = check.missing.map((policy) => `"${policy}"`).join(', ');
  const lines = [
    `project "${project}" (location ${location}) has no live policy ${names}: its events would be dead-lettered (unknown_policy), so nothing was published.`,
  ];
  if (check.known)
    lines.push(
      check.known.length > 0
        ? `Its live policies there: ${check.known.join(', ')}.`
        : `It has no live policy there (check --project and --location).`,
    );
  lines.push(
    'Check --project, --location, --policy and --policy-map; --no-check skips this check. (A state bucket created moments ago, on a new install, may still be filling: then try again in a moment.)',
  );
  return lines.join('\n');
}
