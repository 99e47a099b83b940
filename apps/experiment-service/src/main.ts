import 'reflect-metadata';
import { loadConfigOrExit } from '@rollout/platform/config';
import { runService } from '@rollout/platform/service-kit';
import { AppModule } from './app.module';
import { configSchema } from './config';

const config = loadConfigOrExit('experiment-service', configSchema);
void runService({
  name: 'experiment-service',
  config,
  module: AppModule.forRoot(config),
  rpc: true,
});
