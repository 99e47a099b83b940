import { StatusError } from '@rollout/contracts';
import { z } from 'zod';

/** What the adapter needs is checked, the rest ignored (a newer caller may send more). */
const json = z.record(z.string(), z.unknown());
const isoTime = z.iso.datetime({
  offset: true,
  error: 'must be an ISO 8601 date-time such as 2026-12-01T00:00:00Z',
});
const count = z.number().finite().nonnegative().optional();

const reservation = z.object({
  resourceType: z.string().min(1),
  min: count,
  max: count,
  amount: count,
});
const lease = z.object({
  /** Absent in some check instances; quotas and reports of a lease must carry the same id. */
  id: z.string().min(1).optional(),
  name: z.string().optional(),
  startDate: isoTime,
  endDate: isoTime,
  reservations: z.array(reservation),
});
const context = z.object({
  projectId: z.string().min(1),
  userId: z.string().optional(),
  regionName: z.string().optional(),
  requestId: z.string().optional(),
});
const instance = z.object({
  hook: z.enum(['create', 'update']),
  context,
  lease,
  currentLease: lease.optional(),
});
const target = { sessionId: z.string().min(1).optional(), adapterConfig: json.optional() };

export const REQUESTS = {
  validate: z.object({ adapterConfig: z.unknown(), inferredTypes: json.optional() }),
  createSession: z.object({ adapterConfig: z.unknown(), inferredTypes: json.optional() }),
  closeSession: z.object({ sessionId: z.string().min(1) }),
  handleCheck: z.object({ ...target, instance }),
  handleQuota: z.object({
    ...target,
    instance,
    quotaRequest: z.object({
      quotas: z.record(
        z.string().min(1),
        z.object({
          amount: z.number().finite().nonnegative(),
          bestEffort: z.boolean().default(false),
        }),
      ),
      dedupId: z.string().min(1).max(1024),
    }),
  }),
  handleReport: z.object({
    ...target,
    instances: z.array(
      z.object({ kind: z.enum(['created', 'updated', 'ended']), context, lease, at: isoTime }),
    ),
  }),
};

export type LeaseMessage = z.output<typeof lease>;

export function parseRequest<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const violations = result.error.issues.map((issue) => ({
    field: issue.path.map(String).join('.') || '(body)',
    description: issue.message,
  }));
  throw StatusError.invalidArgument(
    `Invalid request: ${violations.map((v) => `${v.field}: ${v.description}`).join('; ')}`,
    violations,
  );
}
