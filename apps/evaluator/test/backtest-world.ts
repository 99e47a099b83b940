import { BacktestOperation, BacktestRequest, PREVIEW_SUBJECTS } from '@rollout/contracts';
import { eventually } from '@rollout/testing/kit';
import type { NatsConnection } from 'nats';
import { Isolation, rpcClient } from './evaluator-app';

/** Test helpers: start a backtest over NATS as the gateway does, and follow its operation. */

export function startBacktest(
  nc: NatsConnection,
  iso: Isolation,
  request: BacktestRequest,
): Promise<BacktestOperation> {
  return rpcClient(nc, iso).request<BacktestOperation>(PREVIEW_SUBJECTS.backtest, request, {
    timeoutMs: 5_000,
  });
}

export function backtestOperation(
  nc: NatsConnection,
  iso: Isolation,
  name: string,
): Promise<BacktestOperation> {
  return rpcClient(nc, iso).request<BacktestOperation>(
    PREVIEW_SUBJECTS.getOperation,
    { name },
    { timeoutMs: 5_000 },
  );
}

export function finished(
  nc: NatsConnection,
  iso: Isolation,
  name: string,
): Promise<BacktestOperation> {
  return eventually(
    async () => {
      const operation = await backtestOperation(nc, iso, name);
      return operation.done ? operation : undefined;
    },
    { timeoutMs: 20_000, what: `${name} done` },
  );
}
