import { describePostgresTlsInProduction } from '@rollout/testing/kit';
import { configSchema } from './config';

describePostgresTlsInProduction('enforcement-service', configSchema);
