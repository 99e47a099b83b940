import { BusUser, busPermissions } from './bus-permissions';

/** JSON-like (nats-server's config accepts it); a `$NAME` password stays a bare variable reference. */
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
