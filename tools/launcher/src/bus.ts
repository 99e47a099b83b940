import { BusUser, natsAuthorizationConfig } from '@rollout/provision';
import { generateBusKeyPair } from '@rollout/platform/bus-security';
import { randomBytes } from 'node:crypto';
import { LaunchError } from './processes';
import { SERVICES, ServiceName } from './settings';

/** The same bus security as production (docs/bus-security.md), with keys from the environment or generated for this run. */
export interface BusSetup {
  keys: 'environment' | 'generated';
  /** Env of each service: its key, and its NATS user when the launcher's server has users. */
  serviceEnv(service: ServiceName, withNatsUsers: boolean): Record<string, string>;
  natsAuthorization: string;
  operator: { user: string; password: string };
  provisioner: { user: string; password: string };
}

const password = () => randomBytes(18).toString('base64url');

/** BUS_SIGNING_KEY and BUS_VERIFY_KEYS go together. */
export function busSetup(env: NodeJS.ProcessEnv): BusSetup {
  const fromEnv = Boolean(env.BUS_SIGNING_KEY || env.BUS_VERIFY_KEYS);
  if (fromEnv && !(env.BUS_SIGNING_KEY && env.BUS_VERIFY_KEYS))
    throw new LaunchError(
      'BUS_SIGNING_KEY and BUS_VERIFY_KEYS go together: set both, or neither for a key pair of this run',
    );
  const generated = generateBusKeyPair(`dev-${Date.now().toString(36)}`);
  const signingKey = env.BUS_SIGNING_KEY || generated.signingKey;
  // The evaluator's own key, for auto-stop: it may only stop a preview as system:evaluator.
  const evaluatorKey = generateBusKeyPair('system.evaluator');
  const verifyKeys = `${env.BUS_VERIFY_KEYS || generated.verifyKey},${evaluatorKey.verifyKey}`;
  const users: BusUser[] = [
    ...SERVICES.map((s): BusUser => ({
      user: s.name,
      password: password(),
      role: { kind: s.name },
    })),
    { user: 'provisioner', password: password(), role: { kind: 'provisioner' } },
    { user: 'operator', password: password(), role: { kind: 'admin' } },
  ];
  const [provisioner, operator] = users.slice(-2);
  return {
    keys: fromEnv ? 'environment' : 'generated',
    serviceEnv(service, withNatsUsers) {
      const user = users.find((u) => u.user === service)!;
      return {
        ...(service === 'gateway'
          ? { BUS_SIGNING_KEY: signingKey }
          : { BUS_VERIFY_KEYS: verifyKeys }),
        ...(service === 'evaluator' ? { BUS_SIGNING_KEY: evaluatorKey.signingKey } : {}),
        ...(withNatsUsers ? { NATS_USER: user.user, NATS_PASSWORD: user.password } : {}),
      };
    },
    natsAuthorization: natsAuthorizationConfig(users, env.NATS_NAMESPACE || undefined),
    operator: { user: operator.user, password: operator.password },
    provisioner: { user: provisioner.user, password: provisioner.password },
  };
}
