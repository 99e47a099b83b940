import { BusUser, busPermissions } from './bus-permissions';

/**
 * nats-server's `authorization` block for these users (JSON-like, which nats-server's config
 * format accepts); a `$NAME` password stays a bare variable reference, read by nats-server
 * from its environment.
 */
export function natsAuthorizationConfig(users: BusUser[], namespace?: string): string {
  const entries = users.map((entry) => {
    const password = entry.password.startsWith('$')
      ? entry.password
      : JSON.stringify(entry.password);
    if (!/^\$[A-Z_][A-Z0-9_]*$/.test(password) && password.startsWith('$'))
      throw new Error(`password reference ${password} must be $UPPER_CASE_NAME`);
    return `    { user: ${JSON.stringify(entry.user)}, password: ${password}, permissions: ${JSON.stringify(busPermissions(entry, namespace))} }`;
  });
  return `authorization {\n  users: [\n${entries.join(',\n')}\n  ]\n}\n`;
}
