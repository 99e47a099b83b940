import { EXPERIMENT_STATE_BUCKET, STATE_KEY_PREFIX, policyStateKey } from '@rollout/contracts';
import { NatsNamespace, isKvDeletion, kvOperationOf } from '@rollout/platform/nats';
import { Empty, ErrorCode, NatsConnection, NatsError } from 'nats';

export interface PolicyCheck {
  /** Never created, deleted, or committed away. */
  missing: string[];
  /** When this credential may list them. */
  known?: string[];
}

export class PolicyCheckError extends Error {
  /** Whether skipping the check (--no-check) would help: not when the target is the wrong deployment. */
  constructor(
    message: string,
    readonly skippable = true,
  ) {
    super(message);
  }
}

const LIST_TIMEOUT_MS = 5_000;
const GET_TIMEOUT_MS = 5_000;
/** A first direct get not answered by then asks whether the stream is there at all. */
const FIRST_TRY_MS = 1_000;

/**
 * One direct get per policy key (bus-permissions.ts lets a producer read only its projects' keys,
 * not the relay's position key). Listing policies needs a consumer, which only broader
 * credentials may create: without it the list is left out.
 */
export async function checkPolicies(
  connection: NatsConnection,
  target: { namespace?: string; project: string; location: string; policies: string[] },
): Promise<PolicyCheck> {
  const bucket = new NatsNamespace(target.namespace).bucket(EXPERIMENT_STATE_BUCKET);
  const stream = `KV_${bucket}`;
  // The key is in the subject, so permissions can name it. A get on a missing stream is never
  // answered (a wrong namespace): after the first try the stream's info tells, then retry as long as needed.
  const get = (key: string, timeout: number) =>
    connection.request(`$JS.API.DIRECT.GET.${stream}.$KV.${bucket}.${key}`, Empty, { timeout });
  const last = async (key: string) => {
    let reply;
    try {
      reply = await get(key, FIRST_TRY_MS).catch(async (error: unknown) => {
        if (!(error instanceof NatsError && error.code === ErrorCode.Timeout)) throw error;
        if (await streamAbsent(connection, stream)) throw NO_STREAM;
        return get(key, GET_TIMEOUT_MS);
      });
    } catch (error) {
      if (isUnanswered(error))
        throw new PolicyCheckError(await noStateBucket(connection, target, stream, error), false);
      throw new PolicyCheckError(describe(error));
    }
    const status = reply.headers?.code ?? 0;
    if (status === 404) return undefined;
    if (status >= 300)
      throw new PolicyCheckError(
        `reading the state bucket failed: ${status} ${reply.headers?.description ?? ''}`.trim(),
      );
    return isKvDeletion(kvOperationOf(reply.headers)) ? undefined : reply;
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

const NO_STREAM = new NatsError('stream not found', ErrorCode.NoResponders);
const STREAM_NOT_FOUND = 10059;

/** False when it exists or cannot be asked (permissions). */
async function streamAbsent(connection: NatsConnection, stream: string): Promise<boolean> {
  try {
    const reply = await connection.request(`$JS.API.STREAM.INFO.${stream}`, Empty, {
      timeout: FIRST_TRY_MS,
    });
    const answer = JSON.parse(new TextDecoder().decode(reply.data)) as {
      error?: { err_code?: number };
    };
    return answer.error?.err_code === STREAM_NOT_FOUND;
  } catch {
    return false;
  }
}

function isUnanswered(error: unknown): boolean {
  return (
    error instanceof NatsError &&
    (error.code === ErrorCode.NoResponders || error.code === ErrorCode.Timeout)
  );
}

/** Undefined when this credential may not list streams. */
async function namespacesWithState(connection: NatsConnection): Promise<string[] | undefined> {
  const suffix = `${EXPERIMENT_STATE_BUCKET}`;
  try {
    const jsm = await connection.jetstreamManager({ timeout: LIST_TIMEOUT_MS });
    const found: string[] = [];
    for await (const name of jsm.streams.names()) {
      if (name === `KV_${suffix}`) found.push('');
      else if (name.startsWith('KV_') && name.endsWith(`_${suffix}`))
        found.push(name.slice('KV_'.length, -`_${suffix}`.length));
    }
    return found.sort();
  } catch {
    return undefined;
  }
}

const LISTED = 5;
const ASKED = 100;

async function namespacesHolding(
  connection: NatsConnection,
  namespaces: string[],
  target: { project: string; location: string; policies: string[] },
): Promise<string[]> {
  const key = policyStateKey(target.project, target.location, target.policies[0] ?? '');
  const holding: string[] = [];
  for (const namespace of namespaces.slice(0, ASKED)) {
    const bucket = new NatsNamespace(namespace || undefined).bucket(EXPERIMENT_STATE_BUCKET);
    const reply = await connection
      .request(`$JS.API.DIRECT.GET.KV_${bucket}.$KV.${bucket}.${key}`, Empty, {
        timeout: GET_TIMEOUT_MS,
      })
      .catch(() => undefined);
    if (reply && (reply.headers?.code ?? 0) < 300 && !isKvDeletion(kvOperationOf(reply.headers)))
      holding.push(namespace);
  }
  return holding;
}

const named = (namespace: string) => (namespace ? `namespace "${namespace}"` : 'no namespace');

/** Importing into a namespace no evaluator reads (a second instance's, a test run's) is the usual slip. */
async function noStateBucket(
  connection: NatsConnection,
  target: { namespace?: string; project: string; location: string; policies: string[] },
  stream: string,
  error: unknown,
): Promise<string> {
  const tried = `${named(target.namespace ?? '')} (--namespace / NATS_NAMESPACE)`;
  const how =
    error instanceof NatsError && error.code === ErrorCode.Timeout
      ? `nothing answered a read of its state bucket (stream ${stream})`
      : `there is no state bucket (stream ${stream}) on this server`;
  const found = await namespacesWithState(connection);
  const holding = found && (await namespacesHolding(connection, found, target));
  const listed = (namespaces: string[]) =>
    namespaces.length > LISTED
      ? `${namespaces.slice(0, LISTED).map(named).join(', ')} and ${namespaces.length - LISTED} more`
      : namespaces.map(named).join(', ');
  const policy = `${target.project}/${target.location}/${target.policies[0]}`;
  const what =
    found === undefined
      ? 'this NATS user may not list the streams there are'
      : found.length === 0
        ? 'no namespace on this server has one: has the bus provisioning step run (npm start, the bus-provision Job, npm run bus:provision)?'
        : holding && holding.length > 0
          ? `the live policy ${policy} is under ${listed(holding)}`
          : `no namespace here has the live policy ${policy}; the system runs here under ${listed(found)}`;
  return `tried ${tried}: ${how}; ${what}. Set --namespace to the system's (npm start prints it); nothing was published`;
}

function describe(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  if (error instanceof NatsError && error.isPermissionError())
    return `this NATS user may not read the state bucket's policy keys (${text}): its credential predates the read a traffic producer is given (docs/bus-security.md)`;
  return `reading the state bucket failed: ${text}`;
}

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
