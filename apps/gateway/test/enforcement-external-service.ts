import { IncomingMessage, Server, ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hoursFromNow, policySystem } from './enforcement-system';

interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

export const TIMEOUT_MS = 300;

/**
 * A real HTTP policy service for the ExternalService filter. It answers by the project in the
 * payload's context, so one service covers every outcome: 204, 403 with {"message"}, 403 with
 * {"error"}, 403 without a body, 500, a redirect, a timeout; once closed, connection refused.
 */
async function startPolicyServer() {
  const received: Received[] = [];
  const hanging: ServerResponse[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString() || '{}') as {
        context?: { project_id?: string };
      };
      received.push({ path: req.url ?? '', headers: req.headers, body });
      // No keep-alive: once the server closes, the next call is refused, never reset.
      res.setHeader('connection', 'close');
      switch (body.context?.project_id) {
        case 'ext-204':
          return res.writeHead(204).end();
        case 'ext-403-message':
          return res
            .writeHead(403, { 'content-type': 'application/json' })
            .end(
              JSON.stringify({ message: 'Your project is limited to reserving 1 physical host.' }),
            );
        case 'ext-403-error':
          return res
            .writeHead(403, { 'content-type': 'application/json' })
            .end(JSON.stringify({ error: 'Budget exhausted for this quarter.' }));
        case 'ext-403-empty':
          return res.writeHead(403).end();
        case 'ext-500':
          return res
            .writeHead(500, { 'content-type': 'application/json' })
            .end(JSON.stringify({ message: 'database is down' }));
        case 'ext-redirect':
          // Following it would allow (the target answers 204): it must not be followed.
          return res.writeHead(302, { location: '/v1/allow/check-create' }).end();
        case 'ext-on-end-fails':
          return req.url?.endsWith('/on-end') ? res.writeHead(500).end() : res.writeHead(204).end();
        case 'ext-timeout':
          hanging.push(res);
          return;
        default:
          return res.writeHead(204).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1/`,
    received,
    async close() {
      for (const res of hanging.splice(0)) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const chain = (endpoint: string, allowOnError: boolean) => `
enabled_filters: [MaxLeaseDuration, ExternalService]
filters:
  MaxLeaseDuration: { max_lease_duration: 86400 }
  ExternalService:
    endpoint: "${endpoint}"
    token_env: POLICY_SERVICE_TOKEN
    timeout_ms: ${TIMEOUT_MS}
    allow_on_error: ${allowOnError}
`;

export const lease = () => ({
  name: 'nightly',
  startDate: hoursFromNow(1),
  endDate: hoursFromNow(3),
  reservations: [{ resourceType: 'virtual:floatingip', amount: 1, networkId: 'ext-net' }],
});

/** The token the filter sends the policy server. */
export const POLICY_TOKEN = 'policy-s3cret';

/** The policy server and the system whose ExternalService filter calls it. */
export function externalServiceSystem(allowOnError: boolean) {
  return policySystem(
    startPolicyServer,
    (url) => chain(url, allowOnError),
    { POLICY_SERVICE_TOKEN: POLICY_TOKEN },
    lease,
  );
}
