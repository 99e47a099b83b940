import { randomBytes } from 'node:crypto';

/** Valid as a NATS token, stream prefix and SQL identifier. */
export function uniqueName(prefix = 't'): string {
  return `${prefix}${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
}

export async function eventually<T>(
  probe: () => Promise<T | undefined> | T | undefined,
  { timeoutMs = 10_000, intervalMs = 50, what = 'condition' } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  throw new Error(
    `${what} not met within ${timeoutMs} ms${lastError ? `: ${String(lastError)}` : ''}`,
  );
}

export async function freePort(): Promise<number> {
  return (await freePorts(1))[0];
}

/** Held open together: ports taken one at a time can come back twice (the kernel reuses one just closed). */
export async function freePorts(count: number): Promise<number[]> {
  const { createServer } = await import('node:net');
  const servers = Array.from({ length: count }, () => createServer());
  try {
    return await Promise.all(
      servers.map(
        (server) =>
          new Promise<number>((resolve, reject) => {
            server.once('error', reject);
            server.listen(0, '127.0.0.1', () => {
              const address = server.address();
              resolve(typeof address === 'object' && address ? address.port : 0);
            });
          }),
      ),
    );
  } finally {
    await Promise.all(
      servers.map(
        (server) =>
          new Promise((resolve) => (server.listening ? server.close(resolve) : resolve(undefined))),
      ),
    );
  }
}

export function portOpen(port: number): Promise<boolean> {
  return import('node:net').then(
    ({ createConnection }) =>
      new Promise<boolean>((resolve) => {
        const socket = createConnection({ host: '127.0.0.1', port }, () => {
          socket.destroy();
          resolve(true);
        });
        socket.once('error', () => resolve(false));
      }),
  );
}

/** Each test asserts the fields it expects. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type JsonBody = any;
