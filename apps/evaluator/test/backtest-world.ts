import { BacktestOperation, BacktestRequest, FirewallRule, PREVIEW_SUBJECTS } from '@rollout/contracts';
import { eventually } from '@rollout/testing';
import type { NatsConnection } from 'nats';
import { Isolation, rpcClient } from './evaluator-app';

/** Test helpers: start a backtest over NATS as the gateway does, and follow its operation. */

const rule = (priority: number, action: 'allow' | 'deny', match: FirewallRule['match']): FirewallRule => ({ priority, direction: 'INGRESS', action, match });
/** The live policy the backtests replay against: SSH and HTTPS from 10/8, nothing else. */
export const LIVE = [
  rule(100, 'allow', { srcIpRanges: ['10.0.0.0/8'], layer4Configs: [{ ipProtocol: 'tcp', ports: ['22', '443'] }] }),
  rule(200, 'deny', { srcIpRanges: ['0.0.0.0/0'] }),
];
/** The experiment: no more SSH from 10.0.1.0/24. */
export const BLOCK = [rule(50, 'deny', { srcIpRanges: ['10.0.1.0/24'], layer4Configs: [{ ipProtocol: 'tcp', ports: ['22'] }] }), ...LIVE];

export function startBacktest(nc: NatsConnection, iso: Isolation, request: BacktestRequest): Promise<BacktestOperation> {
  return rpcClient(nc, iso).request<BacktestOperation>(PREVIEW_SUBJECTS.backtest, request, { timeoutMs: 5_000 });
}

export function backtestOperation(nc: NatsConnection, iso: Isolation, name: string): Promise<BacktestOperation> {
  return rpcClient(nc, iso).request<BacktestOperation>(PREVIEW_SUBJECTS.getOperation, { name }, { timeoutMs: 5_000 });
}

export function finished(nc: NatsConnection, iso: Isolation, name: string): Promise<BacktestOperation> {
  return eventually(
    async () => {
      const operation = await backtestOperation(nc, iso, name);
      return operation.done ? operation : undefined;
    },
    { timeoutMs: 20_000, what: `${name} done` },
  );
}
