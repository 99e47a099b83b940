export interface ReadinessCheck {
  readonly name: string;
  check(): Promise<void>;
}

export interface ReadinessReport {
  status: 'ok' | 'unavailable';
  checks: Record<string, { status: 'up' | 'down'; error?: string }>;
}

const CHECK_TIMEOUT_MS = 2_000;

function withTimeout(promise: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export async function runReadinessChecks(
  checks: readonly ReadinessCheck[],
  draining: boolean,
): Promise<ReadinessReport> {
  const results = await Promise.all(
    checks.map(async (check) => {
      try {
        await withTimeout(check.check(), CHECK_TIMEOUT_MS);
        return [check.name, { status: 'up' as const }] as const;
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        return [check.name, { status: 'down' as const, error: message }] as const;
      }
    }),
  );
  const report: ReadinessReport = { status: 'ok', checks: Object.fromEntries(results) };
  if (draining) {
    report.checks.shutdown = { status: 'down', error: 'the service is shutting down' };
  }
  if (Object.values(report.checks).some((c) => c.status === 'down')) report.status = 'unavailable';
  return report;
}
