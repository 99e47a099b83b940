import 'reflect-metadata';
import { loadConfigOrExit } from '@rollout/config';
import { runService } from '@rollout/service-kit';
import { AppModule } from './app.module';
import { configSchema } from './config';

const config = loadConfigOrExit('inspection-rules-service', configSchema);
void runService({
  name: 'inspection-rules-service',
  config,
  module: AppModule.forRoot(config),
  rpc: true,
});
