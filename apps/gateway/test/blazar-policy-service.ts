import { IncomingMessage, Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hoursFromNow, policySystem } from './enforcement-system';

interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  body: {
    context: Record<string, unknown>;
    lease: Record<string, unknown>;
    current_lease?: Record<string, unknown>;
  };
}

/** What the service answers on-end, by project: fail `n` times then 204, or fail until told otherwise. */
interface OnEndScript {
  failures: number;
}

/**
 * A real HTTP policy service for Blazar's hooks: it denies project ext-deny, fails for ext-error,
 * and answers on-end by each project's script.
 */
async function startPolicyService() {
  const received: Received[] = [];
  const onEnd = new Map<string, OnEndScript>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString() || '{}') as Received['body'];
      received.push({ path: req.url ?? '', headers: req.headers, body });
      const project = String(body.context?.project_id);
      if (req.url?.endsWith('/on-end')) {
        const script = onEnd.get(project);
        if (script && script.failures > 0) {
          script.failures--;
          return res.writeHead(500).end();
        }
        return res.writeHead(204).end();
      }
      if (project === 'ext-error')
        return res
          .writeHead(500, { 'content-type': 'application/json' })
          .end(JSON.stringify({ message: 'database is down' }));
      if (project === 'ext-deny')
        return res
          .writeHead(403, { 'content-type': 'application/json' })
          .end(JSON.stringify({ message: 'Over budget.' }));
      return res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    // No path: the hooks go to /v1/<hook>, the seed's form.
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    onEnd,
    onEnds: (project: string) =>
      received.filter((r) => r.path === '/v1/on-end' && r.body.context.project_id === project),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The on_end delivery attempts before the outbox gives up. */
export const MAX_ATTEMPTS = 5;
const chain = (endpoint: string) => `
enabled_filters: [ExternalService]
filters:
  ExternalService:
    endpoint: "${endpoint}"
    token: policy-token
    timeout_ms: 2000
    auth_url: "https://keystone.example.com:5000/v3"
    status_on_error: 503
`;

const lease = () => ({
  name: 'hooks',
  startDate: hoursFromNow(1),
  endDate: hoursFromNow(3),
  reservations: [{ resourceType: 'physical:host', min: 1, max: 1 }],
});

/** The policy service and the system whose ExternalService calls it, on_end retried quickly. */
export function hooksSystem() {
  return policySystem(
    startPolicyService,
    chain,
    {
      ENFORCEMENT_RETRY_POLL_INTERVAL_MS: '100',
      ENFORCEMENT_RETRY_BASE_MS: '200',
      ENFORCEMENT_RETRY_MAX_MS: '1000',
      ENFORCEMENT_ON_END_MAX_ATTEMPTS: String(MAX_ATTEMPTS),
    },
    lease,
  );
}
