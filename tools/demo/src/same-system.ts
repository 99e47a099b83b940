import { EXPERIMENT_SUBJECTS, formatPolicies } from '@rollout/contracts';
import { randomBytes } from 'node:crypto';
import { NatsConnection, connect } from 'nats';
import { DEMO_LOCATION, DEMO_PROJECT } from './scenario';

/** What the demo is pointed at: the gateway it calls, and the NATS (and namespace) its importer publishes to. */
export interface DemoTargets {
  gateway: string;
  token: string;
  natsUrl: string;
  natsUser?: { user: string; password: string };
  /** NATS_NAMESPACE ('' or undefined: none). */
  namespace?: string;
}

/** How long the gateway's request may take to be seen on NATS. */
const SEEN_WITHIN_MS = 3_000;
const SUBJECT = EXPERIMENT_SUBJECTS.getPolicy;

const named = (namespace: string) => (namespace ? `namespace "${namespace}"` : 'no namespace');

/**
 * Whether the gateway and the demo's NATS are one system, checked before the demo changes
 * anything: traffic published under another namespace, or to another server, is never
 * evaluated. The demo watches `experiment.v1.policies.get` under its namespace, and under any
 * other one-word namespace, then asks the gateway for a policy that does not exist (a name made
 * up for this check): the request the gateway sends says which namespace, if any, it uses on
 * that server. Answers undefined when they agree, otherwise the one line to say.
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
