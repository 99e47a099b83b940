import { describePostgresTlsInProduction } from '@rollout/testing/kit';
import { configSchema } from './config';

describePostgresTlsInProduction('inspection-rules-service', configSchema);
