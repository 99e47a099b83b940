import 'reflect-metadata';
import { loadConfigOrExit } from '@rollout/platform/config';
import { runService } from '@rollout/platform/service-kit';
import { AppModule } from './app.module';
import { configSchema } from './config';

const config = loadConfigOrExit('inspection-rules-service', configSchema);
void runService({
  name: 'inspection-rules-service',
  config,
  module: AppModule.forRoot(config),
  rpc: true,
});
