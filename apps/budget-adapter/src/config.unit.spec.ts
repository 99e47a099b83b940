import { describePostgresTlsInProduction } from '@rollout/testing/kit';
import { configSchema } from './config';

describePostgresTlsInProduction('budget-adapter', configSchema);
