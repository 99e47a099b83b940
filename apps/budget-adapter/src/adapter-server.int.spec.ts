import { describeAdapterConformance } from '@rollout/testing/adapter-conformance';
import { budgetAdapterSystem } from '../test/budget-adapter-system';

/** The reference adapter passes the adapter.v1 conformance kit. */
const adapter = budgetAdapterSystem({ ADAPTER_NAME: 'acme-budget' });

describeAdapterConformance({
  connection: () => adapter.nc,
  namespace: () => adapter.namespace,
  adapter: 'acme-budget',
  templates: ['check', 'quota', 'report'],
  validConfig: {
    budgets: { acme: { 'physical:host': 100 } },
    default: { 'physical:host': 10, 'virtual:instance': 40 },
  },
  invalidConfig: { budgets: { acme: { 'physical:host': 'lots' } } },
  timeoutMs: 5_000,
  quota: { name: 'physical:host', budget: 10 },
});
