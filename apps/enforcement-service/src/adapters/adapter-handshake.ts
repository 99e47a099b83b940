import { AdapterFilterConfig, AdapterStatus, isOk } from '@rollout/domain/enforcement';
import { AdapterClient } from './adapter-client';

/** Lifecycle calls (Info, Validate, CreateSession, CloseSession) wait at least this long. */
const LIFECYCLE_TIMEOUT_MS = 2_000;
/** What the service sends as `inferredTypes`: the instance shape of each template it uses. */
const INSTANCE_TYPE = 'adapter.v1.LeaseInstance';

interface InfoReply {
  name?: string;
  templates?: string[];
  sessionBased?: boolean;
}

export type Target = { sessionId: string } | { adapterConfig: Record<string, unknown> };

/** A call that fails throws (AdapterCallError); a refusal is returned. */
export async function handshake(
  client: AdapterClient,
  config: AdapterFilterConfig,
): Promise<Target | { refused: string }> {
  const timeout = Math.max(config.timeoutMs, LIFECYCLE_TIMEOUT_MS);
  const inferredTypes = Object.fromEntries(config.templates.map((t) => [t, INSTANCE_TYPE]));
  const info = await client.call<InfoReply>(config.adapter, 'info', {}, timeout);
  const missing = config.templates.filter((t) => !(info.templates ?? []).includes(t));
  if (missing.length)
    return { refused: `the adapter does not support template ${missing.join(', ')}` };
  const validated = await client.call<{ status?: AdapterStatus }>(
    config.adapter,
    'validate',
    { adapterConfig: config.params, inferredTypes },
    timeout,
  );
  if (!isOk(validated.status))
    return { refused: `Validate refused the config: ${describeStatus(validated.status)}` };
  if (info.sessionBased === false) return { adapterConfig: config.params };
  const created = await client.call<{ sessionId?: string; status?: AdapterStatus }>(
    config.adapter,
    'createSession',
    { adapterConfig: config.params, inferredTypes },
    timeout,
  );
  if (!isOk(created.status) || typeof created.sessionId !== 'string' || created.sessionId === '')
    return { refused: `CreateSession refused: ${describeStatus(created.status)}` };
  return { sessionId: created.sessionId };
}

/** adapter.v1 answers FAILED_PRECONDITION, and only it, for a session the adapter does not know. */
export function lostSession(status: AdapterStatus | undefined): boolean {
  return status?.status === 'FAILED_PRECONDITION';
}

export const NO_STATUS: AdapterStatus = {
  code: 13,
  status: 'INTERNAL',
  message: 'no status in the reply',
  details: [],
};

export function describeStatus(status: AdapterStatus | undefined): string {
  if (!status) return 'no status in the reply';
  return `${status.status ?? status.code}${status.message ? ` ${status.message}` : ''}`;
}
