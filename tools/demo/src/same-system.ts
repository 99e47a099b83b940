import { EXPERIMENT_SUBJECTS, formatPolicies } from '@rollout/contracts';
import { randomBytes } from 'node:crypto';
import { NatsConnection, connect } from 'nats';
import { DEMO_LOCATION, DEMO_PROJECT } from './scenario';

export interface DemoTargets {
  gateway: string;
  token: string;
  natsUrl: string;
  natsUser?: { user: string; password: string };
  namespace?: string;
}

/** How long the gateway's request may take to be seen on NATS. */
const SEEN_WITHIN_MS = 3_000;
const SUBJECT = EXPERIMENT_SUBJECTS.getPolicy;

const named = (namespace: string) => (namespace ? `namespace "${namespace}"` : 'no namespace');

/**
 * Traffic published under another namespace or server is never evaluated, so before changing
 * anything the demo asks the gateway for a made-up policy and watches which namespace the request
 * arrives under. Undefined when they agree, otherwise the one line to say.
 */
export async function disagreement(
  targets: DemoTargets,
  askGateway: (path: string) => Promise<unknown>,
): Promise<string | undefined> {
  const ours = targets.namespace ?? '';
  let nc: NatsConnection;
  try {
    nc = await connect({
      servers: targets.natsUrl,
      ...(targets.natsUser ? { user: targets.natsUser.user, pass: targets.natsUser.password } : {}),
      name: 'rollout-demo',
    });
  } catch (error) {
    return `cannot reach NATS at ${targets.natsUrl} (NATS_URL): ${error instanceof Error ? error.message : String(error)}`;
  }
  const probe = `demo-probe-${randomBytes(6).toString('hex')}`;
  try {
    let seen: string | undefined;
    let denied: string | undefined;
    let found!: () => void;
    const arrived = new Promise<void>((resolve) => (found = resolve));
    const watch = (subject: string) =>
      nc.subscribe(subject, {
        callback: (error, message) => {
          if (error) {
            denied ??= error.message;
            return found();
          }
          if (!new TextDecoder().decode(message.data).includes(probe)) return;
          seen ??= message.subject.slice(0, -SUBJECT.length).replace(/\.$/, '');
          found();
        },
      });
    watch(SUBJECT);
    watch(`*.${SUBJECT}`);
    if (ours.includes('.')) watch(`${ours}.${SUBJECT}`);
    await nc.flush();
    await askGateway(
      `/v1/${formatPolicies({ project: DEMO_PROJECT, location: DEMO_LOCATION })}/${probe}`,
    );
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      arrived,
      new Promise<void>((resolve) => (timer = setTimeout(resolve, SEEN_WITHIN_MS))),
    ]);
    clearTimeout(timer);
    if (seen === ours) return undefined;
    if (seen !== undefined)
      return `the gateway at ${targets.gateway} uses NATS ${named(seen)}, the demo ${named(ours)} (NATS_NAMESPACE): its traffic would never be evaluated. Set NATS_NAMESPACE=${seen} (npm start prints its namespace)`;
    if (denied)
      return `the NATS user ${targets.natsUser?.user ?? '(none)'} may not watch ${SUBJECT}, which tells whether the gateway at ${targets.gateway} uses this NATS (${denied}): use the operator user npm start printed (NATS_USER, NATS_PASSWORD)`;
    return `the gateway at ${targets.gateway} does not use NATS at ${targets.natsUrl} (NATS_URL), under ${named(ours)} or any other: point NATS_URL at the gateway's server (npm start prints it)`;
  } finally {
    await nc.close();
  }
}
