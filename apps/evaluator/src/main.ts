import 'reflect-metadata';
import { loadConfigOrExit } from '@rollout/platform/config';
import { runService } from '@rollout/platform/service-kit';
import { AppModule } from './app.module';
import { configSchema } from './config';

const config = loadConfigOrExit('evaluator', configSchema);
void runService({ name: 'evaluator', config, module: AppModule.forRoot(config), rpc: true });
