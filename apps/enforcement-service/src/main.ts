import 'reflect-metadata';
import { loadConfigOrExit } from '@rollout/platform/config';
import { runService } from '@rollout/platform/service-kit';
import { AppModule } from './app.module';
import { configSchema } from './config';
import { loadEnforcementConfigOrExit } from './enforcement-config';

const config = loadConfigOrExit('enforcement-service', configSchema);
const enforcement = loadEnforcementConfigOrExit(
  'enforcement-service',
  config.ENFORCEMENT_CONFIG_FILE,
);
void runService({
  name: 'enforcement-service',
  config,
  module: AppModule.forRoot(config, enforcement),
  rpc: true,
});
